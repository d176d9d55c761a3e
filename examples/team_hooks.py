# team_hooks.py: hooks written for CrewAI; only the import line changed.
from hookport.compat.crewai import before_tool_call, after_llm_call

@before_tool_call(tools=["delete_file"])
def refuse_deletes(context):
    return False                       # the tool is refused; the agent is told and carries on

@after_llm_call
def redact(context):
    if context.response and "4111" in context.response:
        return context.response.replace("4111", "[card]")   # a str replaces the answer
    return None
