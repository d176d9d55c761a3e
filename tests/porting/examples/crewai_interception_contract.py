# Source: CrewAI docs, "Interception Hooks" (the page in /work/shared/seeds/000_590fe502e6f01ba8.txt, a mirror of
# https://github.com/crewAIInc/crewAI at b07a690cea), the contract's code block. Copied unchanged except for the
# import line (crewai's hooks module -> hookport.compat.crewai).
# The mirror's text lost the block's indentation; it is restored (four spaces for the function body).
from hookport.compat.crewai import on, HookAborted, InterceptionPoint

@on(InterceptionPoint.INPUT)
def add_defaults(ctx):
    # 1. Observe: read anything off the context.
    # 2. Mutate in place: change ctx.payload or nested fields directly.
    ctx.payload.setdefault("locale", "en-US")
    # 3. Or replace: return a new value to swap ctx.payload.
    # 4. Or abort: raise HookAborted(reason, source) to stop the operation.
    return None
