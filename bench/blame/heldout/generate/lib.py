"""
Structure helpers for the held-out blame corpus.

Each scenario (in scenarios_*.py) is hand-written text arranged as a small tree
of steps. This module only lays the steps out in time and serialises them the
way real tracing clients do:

- emit_genai:   OTLP/JSON ExportTraceServiceRequest with OpenTelemetry GenAI
                semantic conventions (gen_ai.* on chat and execute_tool spans),
                root/task spans carrying Traceloop/OpenLLMetry entity attributes.
- emit_oi:      OTLP/JSON with OpenInference attributes (openinference.span.kind,
                llm.input_messages.N.message.*, retrieval.documents.N.document.*).
- emit_lc:      a LangChain run tree (RunCollectorCallbackHandler.tracedRuns shape).

Nothing here knows about blame; it only encodes shapes.
"""
from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import random
import uuid
from typing import Any

# ---------------------------------------------------------------------------
# Step tree


def N(kind: str, name: str, children: list | None = None, **kw) -> dict:
    node = {"kind": kind, "name": name, "children": children or []}
    node.update(kw)
    return node


def agent(name, input, output, children, **kw):
    return N("agent", name, children, input=input, output=output, **kw)


def chain(name, input, output, children=None, **kw):
    return N("chain", name, children, input=input, output=output, **kw)


def llm(name, messages, out, model="gpt-4o", **kw):
    """out: an assistant message (dict) or, with samples, a list of them."""
    return N("llm", name, None, messages=messages, out=out, model=model, **kw)


def tool(name, args, result, call_id=None, **kw):
    return N("tool", name, None, args=args, result=result, call_id=call_id, **kw)


def retriever(name, query, docs, **kw):
    """docs: list of dicts {id, content, score?, metadata?}"""
    return N("retriever", name, None, query=query, docs=docs, **kw)


def reranker(name, query, in_docs, out_docs, model, top_k, **kw):
    return N("reranker", name, None, query=query, in_docs=in_docs, out_docs=out_docs, model=model, top_k=top_k, **kw)


def guardrail(name, input, output, **kw):
    return N("guardrail", name, None, input=input, output=output, **kw)


def evaluator(name, input, output, **kw):
    return N("evaluator", name, None, input=input, output=output, **kw)


def prompt(name, variables, messages, **kw):
    return N("prompt", name, None, variables=variables, messages=messages, **kw)


# messages
def sys(t):
    return {"role": "system", "content": t}


def user(t):
    return {"role": "user", "content": t}


def asst(t="", calls=None, finish=None):
    m = {"role": "assistant", "content": t}
    if calls:
        m["tool_calls"] = [{"id": c[0], "name": c[1], "args": c[2]} for c in calls]
    m["finish"] = finish or ("tool_calls" if calls else "stop")
    return m


def toolmsg(call_id, content, name=None):
    m = {"role": "tool", "content": content, "tool_call_id": call_id}
    if name:
        m["name"] = name
    return m


# ---------------------------------------------------------------------------
# Timing


class Clock:
    def __init__(self, seed: str, base_iso: str):
        self.rng = random.Random(hashlib.sha256(seed.encode()).hexdigest())
        self.base_ms = dt.datetime.fromisoformat(base_iso.replace("Z", "+00:00")).timestamp() * 1000

    def hexid(self, n):
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def uuid7(self, ms):
        # time-ordered ids like LangChain JS writes (uuid v7)
        t = int(ms)
        rnd = self.rng.getrandbits(74)
        h = f"{t:012x}" + "7" + f"{rnd >> 62 & 0xfff:03x}" + f"{(0x8 | (rnd >> 60 & 0x3)):x}" + f"{rnd & ((1 << 60) - 1):015x}"
        return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _tok(text) -> int:
    if not isinstance(text, str):
        text = json.dumps(text)
    return max(1, round(len(text) / 3.8))


def default_dur(node, rng):
    k = node["kind"]
    if "dur" in node:
        return node["dur"]
    if k == "llm":
        outs = node["out"] if isinstance(node["out"], list) else [node["out"]]
        toks = sum(_tok(o.get("content", "")) + 12 * len(o.get("tool_calls", [])) for o in outs)
        return rng.randint(350, 700) + toks * rng.randint(14, 24)
    if k == "tool":
        return rng.randint(60, 900)
    if k in ("retriever", "reranker"):
        return rng.randint(90, 520)
    if k in ("guardrail", "evaluator"):
        return rng.randint(250, 1300)
    if k == "prompt":
        return rng.randint(1, 4)
    return rng.randint(2, 20)


def layout(node, start, clk: Clock):
    rng = clk.rng
    node["start"] = start
    if node["children"]:
        cur = start + rng.uniform(0.4, 12) + node.get("lead", 0)
        for c in node["children"]:
            cur += c.get("wait", 0)
            layout(c, cur, clk)
            cur = c["end"] + rng.uniform(0.8, 25)
        node["end"] = max(cur + rng.uniform(0.3, 6), start + node.get("dur", 0))
    else:
        node["end"] = start + default_dur(node, rng) + rng.uniform(0, 0.999)


def walk(node, parent=None):
    yield node, parent
    for c in node["children"]:
        yield from walk(c, node)


def prepare(root, seed, base_iso):
    clk = Clock(seed, base_iso)
    layout(root, clk.base_ms, clk)
    return clk


# ---------------------------------------------------------------------------
# OTLP helpers


def av(v):
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": v}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [av(x) for x in v]}}
    return {"stringValue": v}


def attrs(d: dict):
    return [{"key": k, "value": av(v)} for k, v in d.items() if v is not None]


def ns(ms):
    # whole microseconds, then nanoseconds derived from them (no float noise in the low digits)
    us = int(round(ms * 1000))
    return str(us * 1000 + (us * 7919) % 1000)


def js(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def otlp_span(clk, trace_id, span_id, parent_id, name, kind, node, a: dict, error=None):
    span = {
        "traceId": trace_id,
        "spanId": span_id,
        **({"parentSpanId": parent_id} if parent_id else {}),
        "name": name,
        "kind": kind,
        "startTimeUnixNano": ns(node["start"]),
        "endTimeUnixNano": ns(node["end"]),
        "attributes": attrs(a),
        "droppedAttributesCount": 0,
        "events": [],
        "droppedEventsCount": 0,
        "status": {"code": 0},
        "links": [],
        "droppedLinksCount": 0,
        "flags": 257,
    }
    if error:
        span["status"] = {"code": 2, "message": error["message"]}
        ev = {"exception.type": error.get("type", "Error"), "exception.message": error["message"]}
        if error.get("stack"):
            ev["exception.stacktrace"] = error["stack"]
        span["events"].append({"timeUnixNano": ns(node["end"] - 0.2), "name": "exception", "attributes": attrs(ev), "droppedAttributesCount": 0})
    return span


def resource(service, lang, extra=None):
    a = {"service.name": service, "telemetry.sdk.language": lang, "telemetry.sdk.name": "opentelemetry",
         "telemetry.sdk.version": "1.29.0" if lang == "python" else "2.12.1"}
    a.update(extra or {})
    return {"attributes": attrs(a), "droppedAttributesCount": 0}


def assign_ids(root, clk):
    for node, parent in walk(root):
        node["span_id"] = clk.hexid(16)
        node["parent"] = parent


def gather(spans_by_scope, order_by_end=True):
    out = []
    for scope, spans in spans_by_scope.items():
        if not spans:
            continue
        if order_by_end:
            spans = sorted(spans, key=lambda s: int(s["endTimeUnixNano"]))
        out.append({"scope": scope, "spans": spans})
    return out


# ---------------------------------------------------------------------------
# GenAI (OpenTelemetry semantic conventions; Traceloop/OpenLLMetry entity attributes on workflow/task spans)


def genai_parts(msg):
    parts = []
    if msg["role"] == "tool":
        return {"role": "tool", "parts": [{"type": "tool_call_response", "id": msg["tool_call_id"], "response": msg["content"]}]}
    if msg.get("content"):
        parts.append({"type": "text", "content": msg["content"]})
    for c in msg.get("tool_calls", []):
        parts.append({"type": "tool_call", "id": c["id"], "name": c["name"], "arguments": c["args"]})
    if not parts:
        parts.append({"type": "text", "content": ""})
    m = {"role": msg["role"], "parts": parts}
    return m


def emit_genai(root, seed, base_iso, service, app_scope, lang="python", provider="openai", skip=()):
    clk = prepare(root, seed, base_iso)
    assign_ids(root, clk)
    trace_id = clk.hexid(32)
    if lang == "python":
        llm_scope = {"name": "opentelemetry.instrumentation.openai.v1", "version": "0.40.2"}
    else:
        llm_scope = {"name": "@traceloop/instrumentation-openai", "version": "0.27.0"}
    app = {"name": app_scope}
    scopes = {json.dumps(llm_scope): [], json.dumps(app): []}
    for node, parent in walk(root):
        if node["name"] in skip or node.get("dropped"):
            continue
        pid = parent["span_id"] if parent else None
        k = node["kind"]
        err = node.get("error")
        if k == "llm":
            model = node["model"]
            outs = node["out"] if isinstance(node["out"], list) else [node["out"]]
            msgs = node["messages"]
            sysi = None
            if msgs and msgs[0]["role"] == "system":
                sysi = [{"type": "text", "content": msgs[0]["content"]}]
                msgs = msgs[1:]
            out_parts = []
            for o in outs:
                p = genai_parts(o)
                p["finish_reason"] = "tool_call" if o.get("tool_calls") else o.get("finish", "stop")
                out_parts.append(p)
            in_tok = node.get("in_tokens") or sum(_tok(m.get("content") or "") for m in node["messages"]) + 40
            out_tok = node.get("out_tokens") or sum(_tok(o.get("content") or "") + 14 * len(o.get("tool_calls", [])) for o in outs)
            a = {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": provider,
                "gen_ai.request.model": model,
                "gen_ai.request.temperature": node.get("temperature", 0.2 if len(outs) == 1 else 0.9),
                "gen_ai.request.choice.count": len(outs) if len(outs) > 1 else None,
                "gen_ai.system_instructions": js(sysi) if sysi else None,
                "gen_ai.input.messages": js([genai_parts(m) for m in msgs]),
                "gen_ai.tool.definitions": js(node["tool_defs"]) if node.get("tool_defs") else None,
                "gen_ai.response.model": node.get("response_model", model + "-2024-08-06" if model.startswith("gpt-4o") and "mini" not in model else model + ("-2024-07-18" if model == "gpt-4o-mini" else "")),
                "gen_ai.response.id": "chatcmpl-" + base64.b32encode(clk.rng.randbytes(15)).decode().rstrip("=")[:24].replace("=", "x"),
                "gen_ai.usage.input_tokens": in_tok,
                "gen_ai.usage.output_tokens": out_tok,
                "gen_ai.response.finish_reasons": [p["finish_reason"] for p in out_parts],
                "gen_ai.output.messages": js(out_parts),
                "gen_ai.agent.name": node.get("agent_name"),
                "gen_ai.conversation.id": node.get("conversation_id"),
            }
            name = node.get("span_name") or f"chat {model}"
            scopes[json.dumps(llm_scope)].append(otlp_span(clk, trace_id, node["span_id"], pid, name, 3, node, a, err))
        elif k == "tool":
            a = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": node["name"],
                "gen_ai.tool.type": "function",
                "gen_ai.tool.description": node.get("description"),
                "gen_ai.tool.call.id": node.get("call_id"),
                "gen_ai.tool.call.arguments": js(node["args"]) if not isinstance(node["args"], str) else node["args"],
                "gen_ai.tool.call.result": (node["result"] if isinstance(node["result"], str) else js(node["result"])) if node.get("result") is not None else None,
            }
            if err:
                a["error.type"] = err.get("type", "Error")
            scopes[json.dumps(app)].append(otlp_span(clk, trace_id, node["span_id"], pid, f"execute_tool {node['name']}", 1, node, a, err))
        elif k == "agent":
            a = {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": node.get("agent_name", node["name"]),
                "gen_ai.agent.description": node.get("description"),
                "gen_ai.provider.name": provider if node.get("agent_provider") else None,
                "gen_ai.conversation.id": node.get("conversation_id"),
                "traceloop.span.kind": "workflow" if parent is None else "agent",
                "traceloop.workflow.name": node.get("workflow") if parent is None else None,
                "traceloop.entity.name": node.get("agent_name", node["name"]),
                "traceloop.entity.input": js(node["input"]),
                "traceloop.entity.output": js(node["output"]) if node.get("output") is not None else None,
            }
            name = node.get("span_name") or f"invoke_agent {node.get('agent_name', node['name'])}"
            scopes[json.dumps(app)].append(otlp_span(clk, trace_id, node["span_id"], pid, name, 1, node, a, err))
        else:  # chain / guardrail / evaluator / retriever as Traceloop tasks
            a = {
                "traceloop.span.kind": "task",
                "traceloop.entity.name": node["name"],
                "traceloop.entity.input": js(node.get("input", node.get("query"))),
                "traceloop.entity.output": js(node.get("output", node.get("docs"))) if node.get("output", node.get("docs")) is not None else None,
            }
            a.update(node.get("extra_attrs", {}))
            name = node.get("span_name") or f"{node['name']}.task"
            scopes[json.dumps(app)].append(otlp_span(clk, trace_id, node["span_id"], pid, name, 1, node, a, err))
    res = resource(service, lang, {"deployment.environment": "production"} if clk.rng.random() < 0.5 else None)
    scope_spans = [{"scope": json.loads(k), "spans": sorted(v, key=lambda s: int(s["endTimeUnixNano"]))} for k, v in scopes.items() if v]
    return {"resourceSpans": [{"resource": res, "scopeSpans": scope_spans}]}


# ---------------------------------------------------------------------------
# OpenInference


def oi_messages(prefix, msgs):
    a = {}
    for i, m in enumerate(msgs):
        p = f"{prefix}.{i}.message."
        a[p + "role"] = m["role"]
        if m.get("content") or not m.get("tool_calls"):
            a[p + "content"] = m.get("content") or ""
        if m.get("name"):
            a[p + "name"] = m["name"]
        if m.get("tool_call_id"):
            a[p + "tool_call_id"] = m["tool_call_id"]
        for j, c in enumerate(m.get("tool_calls", [])):
            q = f"{p}tool_calls.{j}.tool_call."
            a[q + "id"] = c["id"]
            a[q + "function.name"] = c["name"]
            a[q + "function.arguments"] = js(c["args"])
    return a


def openai_msg(m):
    o = {"role": m["role"], "content": m.get("content") or (None if m.get("tool_calls") else "")}
    if m.get("tool_calls"):
        o["tool_calls"] = [{"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": js(c["args"])}} for c in m["tool_calls"]]
    if m.get("tool_call_id"):
        o["tool_call_id"] = m["tool_call_id"]
    return o


def docs_attrs(prefix, docs):
    a = {}
    for i, d in enumerate(docs):
        p = f"{prefix}.{i}.document."
        if d.get("id"):
            a[p + "id"] = d["id"]
        a[p + "content"] = d["content"]
        if d.get("score") is not None:
            a[p + "score"] = float(d["score"])
        if d.get("metadata"):
            a[p + "metadata"] = js(d["metadata"])
    return a


def emit_oi(root, seed, base_iso, service, lang="python", scope=None, session=None):
    clk = prepare(root, seed, base_iso)
    assign_ids(root, clk)
    trace_id = clk.hexid(32)
    if scope is None:
        scope = {"name": "openinference.instrumentation.langchain", "version": "0.1.29"} if lang == "python" else {"name": "@arizeai/openinference-instrumentation-langchain", "version": "4.1.1"}
    spans = []
    for node, parent in walk(root):
        if node.get("dropped"):
            continue
        pid = parent["span_id"] if parent else None
        k = node["kind"]
        err = node.get("error")
        a: dict[str, Any] = {}
        if k == "llm":
            outs = node["out"] if isinstance(node["out"], list) else [node["out"]]
            in_tok = node.get("in_tokens") or sum(_tok(m.get("content") or "") for m in node["messages"]) + 40
            out_tok = node.get("out_tokens") or sum(_tok(o.get("content") or "") + 14 * len(o.get("tool_calls", [])) for o in outs)
            inv = {"model": node["model"], "temperature": node.get("temperature", 0.0 if len(outs) == 1 else 0.8)}
            if len(outs) > 1:
                inv["n"] = len(outs)
            a = {"openinference.span.kind": "LLM"}
            a["input.value"] = js({"messages": [openai_msg(m) for m in node["messages"]], **inv})
            a["input.mime_type"] = "application/json"
            a["output.value"] = js({"id": "chatcmpl-" + clk.hexid(24), "object": "chat.completion", "model": node["model"],
                                     "choices": [{"index": i, "message": openai_msg(o), "finish_reason": o.get("finish", "stop")} for i, o in enumerate(outs)],
                                     "usage": {"prompt_tokens": in_tok, "completion_tokens": out_tok, "total_tokens": in_tok + out_tok}})
            a["output.mime_type"] = "application/json"
            a["llm.invocation_parameters"] = js(inv)
            a["llm.model_name"] = node["model"]
            a["llm.provider"] = node.get("provider", "openai")
            a["llm.system"] = node.get("system", "openai")
            a.update(oi_messages("llm.input_messages", node["messages"]))
            a.update(oi_messages("llm.output_messages", outs))
            a["llm.token_count.prompt"] = in_tok
            a["llm.token_count.completion"] = out_tok
            a["llm.token_count.total"] = in_tok + out_tok
        elif k == "tool":
            a = {"openinference.span.kind": "TOOL", "tool.name": node["name"]}
            if node.get("description"):
                a["tool.description"] = node["description"]
            a["input.value"] = node["args"] if isinstance(node["args"], str) else js(node["args"])
            a["input.mime_type"] = "text/plain" if isinstance(node["args"], str) else "application/json"
            if node.get("result") is not None:
                a["output.value"] = node["result"] if isinstance(node["result"], str) else js(node["result"])
                a["output.mime_type"] = "text/plain" if isinstance(node["result"], str) else "application/json"
            if node.get("call_id"):
                a["tool_call.id"] = node["call_id"]
        elif k == "retriever":
            a = {"openinference.span.kind": "RETRIEVER", "input.value": node["query"], "input.mime_type": "text/plain"}
            a.update(docs_attrs("retrieval.documents", node["docs"]))
        elif k == "reranker":
            a = {"openinference.span.kind": "RERANKER", "reranker.query": node["query"], "reranker.model_name": node["model"], "reranker.top_k": node["top_k"]}
            a.update(docs_attrs("reranker.input_documents", node["in_docs"]))
            a.update(docs_attrs("reranker.output_documents", node["out_docs"]))
        else:
            kindname = {"agent": "AGENT", "chain": "CHAIN", "guardrail": "GUARDRAIL", "evaluator": "EVALUATOR", "prompt": "PROMPT"}[k]
            a = {"openinference.span.kind": kindname}
            if k == "agent" and node.get("agent_name"):
                a["agent.name"] = node["agent_name"]
            iv = node.get("input")
            ov = node.get("output")
            if iv is not None:
                a["input.value"] = iv if isinstance(iv, str) else js(iv)
                a["input.mime_type"] = "text/plain" if isinstance(iv, str) else "application/json"
            if ov is not None:
                a["output.value"] = ov if isinstance(ov, str) else js(ov)
                a["output.mime_type"] = "text/plain" if isinstance(ov, str) else "application/json"
        if node.get("metadata"):
            a["metadata"] = js(node["metadata"])
        if session:
            a["session.id"] = session
        a.update(node.get("extra_attrs", {}))
        spans.append(otlp_span(clk, trace_id, node["span_id"], pid, node.get("span_name", node["name"]), 1, node, a, err))
    spans.sort(key=lambda s: int(s["endTimeUnixNano"]))
    res = resource(service, lang, {"openinference.project.name": service})
    return {"resourceSpans": [{"resource": res, "scopeSpans": [{"scope": scope, "spans": spans}]}]}


# ---------------------------------------------------------------------------
# LangChain run tree


def lc_msg(m):
    cls = {"system": "SystemMessage", "user": "HumanMessage", "assistant": "AIMessage", "tool": "ToolMessage"}[m["role"]]
    kw: dict[str, Any] = {"content": m.get("content") or "", "additional_kwargs": {}, "response_metadata": {}}
    if m["role"] == "assistant" and m.get("tool_calls"):
        kw["tool_calls"] = [{"name": c["name"], "args": c["args"], "type": "tool_call", "id": c["id"]} for c in m["tool_calls"]]
        kw["additional_kwargs"] = {"tool_calls": [{"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": js(c["args"])}} for c in m["tool_calls"]]}
        kw["invalid_tool_calls"] = []
    if m["role"] == "tool":
        kw["tool_call_id"] = m["tool_call_id"]
        kw["status"] = "success"
        if m.get("name"):
            kw["name"] = m["name"]
    return {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", cls], "kwargs": kw}


def iso(ms):
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_us(ms):
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")


def emit_lc(root, seed, base_iso):
    clk = prepare(root, seed, base_iso)
    # integer milliseconds like LangChain JS; keep children within parents
    for node, _ in walk(root):
        node["start"] = int(node["start"])
        node["end"] = int(node["end"]) + 1
    counter = [0]
    trace_id = None

    def build(node, parent, dotted):
        nonlocal trace_id
        counter[0] += 1
        rid = clk.uuid7(node["start"])
        if trace_id is None:
            trace_id = rid
        d = iso_us(node["start"]) + rid
        dotted_order = f"{dotted}.{d}" if dotted else d
        k = node["kind"]
        run: dict[str, Any] = {"id": rid, "name": node["name"]}
        if parent is not None:
            run["parent_run_id"] = parent["id"]
        run["start_time"] = node["start"]
        extra: dict[str, Any] = {"metadata": dict(node.get("metadata", {}))}
        err = node.get("error")
        if k == "llm":
            outs = node["out"] if isinstance(node["out"], list) else [node["out"]]
            o = outs[0]
            in_tok = sum(_tok(m.get("content") or "") for m in node["messages"]) + 40
            out_tok = _tok(o.get("content") or "") + 14 * len(o.get("tool_calls", []))
            model = node["model"]
            resp_model = node.get("response_model", model)
            run_type = node.get("run_type", "llm")
            run["serialized"] = {"lc": 1, "type": "constructor", "id": ["langchain", "chat_models", "openai", "ChatOpenAI"] if "claude" not in model else ["langchain", "chat_models", "anthropic", "ChatAnthropic"],
                                 "kwargs": {"model": model, "temperature": node.get("temperature", 0), "openai_api_key" if "claude" not in model else "anthropic_api_key": {"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY" if "claude" not in model else "ANTHROPIC_API_KEY"]}}}
            run["inputs"] = {"messages": [[lc_msg(m) for m in node["messages"]]]}
            ai = lc_msg(o)
            ai["kwargs"]["id"] = "chatcmpl-" + clk.hexid(24) if "claude" not in model else "msg_" + clk.hexid(24)
            ai["kwargs"]["response_metadata"] = {"tokenUsage": {"promptTokens": in_tok, "completionTokens": out_tok, "totalTokens": in_tok + out_tok},
                                                 "finish_reason": o.get("finish", "stop"), "model_provider": "openai" if "claude" not in model else "anthropic", "model_name": resp_model}
            ai["kwargs"]["type"] = "ai"
            ai["kwargs"]["usage_metadata"] = {"output_tokens": out_tok, "input_tokens": in_tok, "total_tokens": in_tok + out_tok, "input_token_details": {}, "output_token_details": {}}
            ai["kwargs"].setdefault("tool_calls", [])
            ai["kwargs"].setdefault("invalid_tool_calls", [])
            run["outputs"] = {"generations": [[{"text": o.get("content") or "", "message": ai, "generationInfo": {"finish_reason": o.get("finish", "stop")}}]],
                              "llmOutput": {"tokenUsage": {"promptTokens": in_tok, "completionTokens": out_tok, "totalTokens": in_tok + out_tok}}}
            extra["invocation_params"] = {"model": model, "temperature": node.get("temperature", 0), "stream": False}
            if node.get("tool_defs"):
                extra["invocation_params"]["tools"] = node["tool_defs"]
            extra["metadata"].update({"ls_provider": "openai" if "claude" not in model else "anthropic", "ls_model_name": model, "ls_model_type": "chat", "ls_temperature": node.get("temperature", 0)})
            extra["batch_size"] = 1
        elif k == "tool":
            run_type = "tool"
            run["serialized"] = {"lc": 1, "type": "not_implemented", "id": ["langchain", "tools", node.get("tool_class", "DynamicStructuredTool")]}
            run["inputs"] = node["args"] if isinstance(node["args"], dict) else {"input": node["args"]}
            if node.get("result") is not None and not err:
                res = node["result"] if isinstance(node["result"], str) else js(node["result"])
                if node.get("call_id"):
                    run["outputs"] = {"output": lc_msg({"role": "tool", "content": res, "tool_call_id": node["call_id"], "name": node["name"]})}
                    run["outputs"]["output"]["kwargs"]["metadata"] = {}
                else:
                    run["outputs"] = {"output": res}
            if node.get("call_id"):
                extra["tool_call_id"] = node["call_id"]
        elif k == "retriever":
            run_type = "retriever"
            run["serialized"] = {"lc": 1, "type": "not_implemented", "id": ["langchain_core", "vectorstores", node.get("retriever_class", "VectorStoreRetriever")]}
            run["inputs"] = {"query": node["query"]}
            run["outputs"] = {"documents": [{"pageContent": d["content"], "metadata": d.get("metadata", {}), "id": d.get("id")} for d in node["docs"]]}
        elif k == "prompt":
            run_type = "prompt"
            run["serialized"] = {"lc": 1, "type": "constructor", "id": ["langchain_core", "prompts", "chat", "ChatPromptTemplate"], "kwargs": {"input_variables": list(node["variables"].keys())}}
            run["inputs"] = node["variables"]
            run["outputs"] = {"output": {"lc": 1, "type": "constructor", "id": ["langchain_core", "prompt_values", "ChatPromptValue"], "kwargs": {"messages": [lc_msg(m) for m in node["messages"]]}}}
        else:
            run_type = node.get("run_type", "chain")
            run["serialized"] = {"lc": 1, "type": "not_implemented", "id": node.get("serialized_id", ["langchain_core", "runnables", "RunnableSequence"])}
            run["inputs"] = node.get("input") if isinstance(node.get("input"), dict) else {"input": node.get("input")}
            ov = node.get("output")
            if ov is not None and not err:
                run["outputs"] = ov if isinstance(ov, dict) else {"output": ov}
        run["events"] = [{"name": "start", "time": iso(node["start"])}] + ([{"name": "end", "time": iso(node["end"])}] if not err else [{"name": "error", "time": iso(node["end"])}])
        run["execution_order"] = counter[0]
        run["run_type"] = run_type
        run["extra"] = extra
        run["tags"] = node.get("tags", [])
        run["trace_id"] = trace_id
        run["dotted_order"] = dotted_order
        run["_serialized_start_time"] = dt.datetime.fromtimestamp(node["start"] / 1000, tz=dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        run["end_time"] = node["end"]
        if err:
            run["error"] = err["message"] + "\n\n" + err.get("stack", f"{err.get('type', 'Error')}: {err['message']}")
        children = []
        for c in node["children"]:
            if c.get("dropped"):
                counter[0] += 1
                continue
            children.append(build(c, run, dotted_order))
        run["child_execution_order"] = counter[0]
        run["child_runs"] = children
        return run

    return [build(root, None, "")]


# ---------------------------------------------------------------------------


def write(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
