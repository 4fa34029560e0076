"""A small retrieval-augmented answering pipeline, recorded with the Traceback
Python SDK. Runs offline: the "LLM" is a stand-in client with the shape of
``anthropic.Anthropic`` (swap in the real client and nothing else changes).

    python3 sdk/python/examples/rag_pipeline.py "How long do I have to return a laptop?"
    npm run tb -- list            # the run shows up once the inbox is imported

It has a realistic flaw for Traceback to find: retrieval keeps only the top
passage, and for electronics questions that passage is the general policy, so
the answer is wrong and the verdict fails.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from types import SimpleNamespace

# The SDK is not installed as a package in this repository; make it importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tracebackai as tb  # noqa: E402

CORPUS = [
    {"id": "policy-general", "text": "Returns: most items can be returned within 30 days of delivery for a full refund."},
    {"id": "policy-electronics", "text": "Electronics such as laptops and phones can be returned within 14 days of delivery."},
    {"id": "shipping", "text": "Standard shipping takes 3 to 5 business days; express shipping takes 1 day."},
    {"id": "warranty", "text": "Laptops carry a one-year limited warranty against manufacturing defects."},
]

EXPECTED = {"laptop": "14 days", "return": "30 days", "shipping": "3 to 5 business days"}


class OfflineMessages:
    """Answers with the first sentence of the context that contains a duration."""

    def create(self, *, model, max_tokens, system, messages, **_):
        prompt = messages[-1]["content"]
        context = prompt.split("Context:", 1)[-1]
        match = re.search(r"[^.\n]*?\b(\d+(?: to \d+)? (?:days|business days|day))\b[^.\n]*\.", context)
        text = f"You have {match.group(1)}." if match else "I could not find that in the policy."
        words = len(prompt.split())
        return SimpleNamespace(
            id="msg_offline",
            model=f"{model}-offline",
            content=[SimpleNamespace(type="text", text=text)],
            stop_reason="end_turn",
            usage=SimpleNamespace(input_tokens=words, output_tokens=len(text.split())),
        )


class OfflineClient:
    def __init__(self):
        self.messages = OfflineMessages()


client = tb.wrap_anthropic(OfflineClient(), name="answer_llm")


def words(text: str) -> set[str]:
    """Lower-cased words of more than three letters, with a plural/past ending cut."""
    return {re.sub(r"(?:ed|s)$", "", w) for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3}


def overlap(question: str, doc: dict) -> int:
    return len(words(question) & words(doc["text"]))


@tb.trace(type="retrieval")
def retrieve(question: str, k: int = 3) -> list[dict]:
    return sorted(CORPUS, key=lambda doc: overlap(question, doc), reverse=True)[:k]


@tb.trace(type="tool")
def rerank(question: str, passages: list[dict], keep: int) -> list[dict]:
    # The flaw: "canonical policy first" boosts the general returns policy above a
    # more specific passage, so electronics questions lose their only evidence.
    def score(doc: dict) -> float:
        return overlap(question, doc) + (1.5 if doc["id"] == "policy-general" else 0.0)

    kept = sorted(passages, key=score, reverse=True)[:keep]
    tb.set_metadata(kept=[doc["id"] for doc in kept])
    return kept


@tb.trace(type="prompt")
def build_prompt(question: str, passages: list[dict]) -> str:
    context = "\n".join(f"- {doc['text']}" for doc in passages)
    return f"Question: {question}\nContext:\n{context}"


@tb.trace(type="llm", name="answer")
def answer(question: str, prompt: str) -> str:
    system = tb.instructions("Answer in one sentence using only the context.")
    reply = client.messages.create(
        model="offline-model",
        max_tokens=200,
        system=system,
        messages=[{"role": "user", "content": prompt}],
    )
    return reply.content[0].text


@tb.trace(type="tool", side_effect=True)
def notify_customer(email: str, text: str) -> dict:
    # A real pipeline would send mail here; fork experiments must never do that.
    return {"queued_for": email}


# Fork experiments replay this pipeline; they may not email anyone.
tb.register_mock("notify_customer", lambda email, text: {"queued_for": email, "mocked": True})


def expected_for(question: str) -> str | None:
    lowered = question.lower()
    for keyword, value in EXPECTED.items():
        if keyword in lowered:
            return value
    return None


@tb.pipeline("rag-support", tags={"example": "rag_pipeline.py"})
def support(question: str, email: str = "customer@example.com") -> str:
    passages = rerank(question, retrieve(question), keep=1)
    reply = answer(question, build_prompt(question, passages))
    notify_customer(email, reply)
    expected = expected_for(question)
    if expected is not None:
        passed = expected in reply
        tb.verdict(passed, detail=f"expected the answer to mention {expected!r}", expected=expected)
        tb.score_run("correct", 1.0 if passed else 0.0)
    return reply


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question", nargs="?", default="How long do I have to return a laptop?")
    args = parser.parse_args(argv)
    print(support(args.question))
    run_home = tb.default_home()
    print(f"trace written to {run_home / 'inbox'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
