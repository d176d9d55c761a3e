# Source: PraisonAI docs, "Hooks" (https://praison.ai/docs, the page in /work/shared/seeds/004_79623240bb775635.txt),
# code block 3. Copied unchanged except for the import lines (praisonaiagents.hooks ->
# hookport.compat.praisonai; praisonaiagents.Agent/HooksConfig -> the test stub, whose agent the test
# replaces with a real framework agent).
from tests.porting.praisonai_agent_stub import Agent, HooksConfig

def log_step(event_data):
    print(f"Step: {event_data}")

def on_tool(event_data):
    print(f"Tool called: {event_data.tool_name}")

agent = Agent(
    name="MonitoredAgent",
    instructions="You are a helpful assistant.",
    hooks=HooksConfig(
        on_step=log_step,
        on_tool_call=on_tool,
    )
)

agent.start("Write a haiku about Python")
