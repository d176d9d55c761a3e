"""Small chat models and LLMs that record what reaches them (shared by the adapter tests)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.language_models.llms import LLM
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult, GenerationChunk


class EchoChat(BaseChatModel):
    """Answers `reply` (a string or content blocks); records every request. No `_stream`."""

    reply: Any = "the original answer"
    requests: list[list[BaseMessage]] = []

    @property
    def _llm_type(self) -> str:
        return "echo"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.requests.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply))])


class StreamingEcho(EchoChat):
    """Streams `reply` word by word through `_stream` (and the callbacks)."""

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        self.requests.append(list(messages))
        words = str(self.reply).split(" ")
        for index, word in enumerate(words):
            piece = word if index == 0 else " " + word
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager is not None:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk


class EchoLLM(LLM):
    """A legacy completion model: records prompts, answers `reply`, streams it word by word."""

    reply: str = "the original answer"
    prompts: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "echo-llm"

    def _call(self, prompt: str, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> str:
        self.prompts.append(prompt)
        return self.reply

    def _stream(self, prompt: str, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Iterator[GenerationChunk]:
        self.prompts.append(prompt)
        for index, word in enumerate(self.reply.split(" ")):
            yield GenerationChunk(text=word if index == 0 else " " + word)
