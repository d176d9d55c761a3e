"""The approval hook policy.toml names (``myteam.approvals:ask_on_call``)."""
