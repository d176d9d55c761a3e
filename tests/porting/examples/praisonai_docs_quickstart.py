# Source: PraisonAI docs, "Hooks" (https://praison.ai/docs, the page in /work/shared/seeds/004_79623240bb775635.txt),
# code block 2. Copied unchanged except for the import lines (praisonaiagents.hooks ->
# hookport.compat.praisonai; praisonaiagents.Agent/HooksConfig -> the test stub, whose agent the test
# replaces with a real framework agent).
from tests.porting.praisonai_agent_stub import Agent
from hookport.compat.praisonai import add_hook

@add_hook('before_tool')
def log_tools(event_data):
    print(f"Running tool: {event_data.tool_name}")

@add_hook('before_tool')
def block_delete(event_data):
    if "delete" in event_data.tool_name.lower():
        return "Delete operations are blocked"

agent = Agent(
    name="SecureAssistant",
    instructions="You are a helpful assistant."
)

agent.start("Help me organize my files")
