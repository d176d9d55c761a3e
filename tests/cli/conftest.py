"""The command-line tests share the root conftest's clean_engine fixture."""
