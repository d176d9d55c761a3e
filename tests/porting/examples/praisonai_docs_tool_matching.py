# Source: PraisonAI docs, "Hooks" (https://praison.ai/docs, the page in /work/shared/seeds/004_79623240bb775635.txt),
# code block 7. Copied unchanged except for the import lines (praisonaiagents.hooks ->
# hookport.compat.praisonai; praisonaiagents.Agent/HooksConfig -> the test stub, whose agent the test
# replaces with a real framework agent).
from tests.porting.praisonai_agent_stub import Agent
from hookport.compat.praisonai import HookRegistry, HookEvent, HookResult

registry = HookRegistry()

@registry.on(HookEvent.BEFORE_TOOL)
def file_guard(event_data) -> HookResult:
    if event_data.tool_name.startswith("write_"):
        print(f"Write operation: {event_data.tool_name}")
    return HookResult.allow()

agent = Agent(
    name="GuardedAgent",
    instructions="You are a helpful assistant.",
    hooks=registry
)

agent.start("Create a summary and save it to output.txt")
