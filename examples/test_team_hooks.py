# test_team_hooks.py: the hooks of team_hooks.py, on a real agent loop
from hookport import adapters
from offline_agent import RAN, demo_graph      # a LangGraph agent on a scripted model

adapters.install("langchain")


def test_deletes_are_refused(hookport_import, hookport_events):
    hookport_import("team_hooks")              # its hooks, registered for this test
    graph, inputs = demo_graph()
    state = graph.invoke(inputs)
    assert RAN["delete_file"] == 0
    assert any(e.point == "pre_tool_call" and e.outcome == "aborted" for e in hookport_events)
    assert "[card]" in state["messages"][-1].content


def test_each_test_gets_the_hooks_again(hookport_import):
    hookport_import("team_hooks")              # a plain `import team_hooks` would register nothing here
    graph, inputs = demo_graph()
    graph.invoke(inputs)
    assert RAN["delete_file"] == 0
