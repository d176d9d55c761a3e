# Source: PraisonAI docs, "Hooks" (https://praison.ai/docs, the page in /work/shared/seeds/004_79623240bb775635.txt),
# code block 5. Copied unchanged except for the import lines (praisonaiagents.hooks ->
# hookport.compat.praisonai; praisonaiagents.Agent/HooksConfig -> the test stub, whose agent the test
# replaces with a real framework agent).
from tests.porting.praisonai_agent_stub import Agent
from hookport.compat.praisonai import add_hook

BLOCKED_TOOLS = {"delete_file", "execute_command", "drop_table"}

@add_hook('before_tool')
def security_filter(event_data):
    if event_data.tool_name in BLOCKED_TOOLS:
        return f"Tool '{event_data.tool_name}' is not allowed in this environment"

agent = Agent(
    name="SafeAgent",
    instructions="Help users manage their documents safely."
)

agent.start("Clean up the old log files")
