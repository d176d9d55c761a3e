"""Keep every retry and error-conversion layer away from `HookAborted`.

An abort must leave the entry point as `HookAborted`, not be retried by
`Runnable.with_retry()`, a LangGraph `RetryPolicy`, langchain's
`ModelRetryMiddleware` / `ToolRetryMiddleware`, nor turned into an error
`ToolMessage` by `ToolNode(handle_tool_errors=...)`. Each of those asks one
function whether to retry or convert; these wrappers answer "no" for an
abort and defer to the original for everything else.
"""

from __future__ import annotations

from typing import Any

from hookport.errors import HookAborted


def runnable_retrying(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`RunnableRetry._sync_retrying` / `_async_retrying`: a tenacity Retrying that never retries an abort."""
    retrying = wrapped(*args, **kwargs)
    from tenacity import retry_all, retry_if_not_exception_type

    retrying.retry = retry_all(retry_if_not_exception_type(HookAborted), retrying.retry)
    return retrying


def graph_should_retry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`langgraph.pregel._retry._should_retry_on(retry_policy, exc)`."""
    error = args[1] if len(args) > 1 else kwargs.get("exc")
    if isinstance(error, HookAborted):
        return False
    return wrapped(*args, **kwargs)


def middleware_should_retry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`should_retry_exception(exc, retry_on)` as looked up by the model and tool retry middlewares."""
    error = args[0] if args else kwargs.get("exc")
    if isinstance(error, HookAborted):
        return False
    return wrapped(*args, **kwargs)


def tool_node_error(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`langgraph.prebuilt.tool_node._handle_tool_error(e, flag=...)`: an abort is re-raised, never a ToolMessage."""
    error = args[0] if args else kwargs.get("e")
    if isinstance(error, HookAborted):
        raise error
    return wrapped(*args, **kwargs)
