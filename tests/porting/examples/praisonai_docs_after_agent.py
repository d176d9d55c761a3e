# Source: PraisonAI docs, "Hooks" (https://praison.ai/docs, the page in /work/shared/seeds/004_79623240bb775635.txt),
# code block 8. Copied unchanged except for the import lines (praisonaiagents.hooks ->
# hookport.compat.praisonai; praisonaiagents.Agent/HooksConfig -> the test stub, whose agent the test
# replaces with a real framework agent).
from tests.porting.praisonai_agent_stub import Agent
from hookport.compat.praisonai import add_hook

# No before_agent / after_agent hook registered anywhere in the process.
# The runtime skips input construction entirely — no os.getcwd(), no tools list build.
agent = Agent(name="Fast", instructions="Be helpful.")
agent.start("Say hi")

# Only pay the cost when you actually opt in:
@add_hook("after_agent")
def log_turn(event_data):
    print(f"Turn completed by {event_data.agent_name} in {event_data.execution_time_ms:.0f}ms")

agent.start("Say hi again")   # Now the input is built and after_agent fires.
