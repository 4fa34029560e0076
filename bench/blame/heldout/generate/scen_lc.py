"""LangChain run-tree scenarios (RunCollectorCallbackHandler.tracedRuns shape)."""
from lib import *  # noqa: F401,F403

S = []
AE = ["langchain", "agents", "agent", "AgentExecutor"]
RS = ["langchain_core", "runnables", "RunnableSequence"]
LG = ["langgraph", "pregel", "CompiledStateGraph"]


def parser(text):
    return chain("StrOutputParser", text, text, run_type="parser", serialized_id=["langchain_core", "output_parsers", "string", "StrOutputParser"])


def lgm(step, node):
    return {"langgraph_step": step, "langgraph_node": node, "langgraph_triggers": [f"branch:to:{node}"], "langgraph_path": ["__pregel_pull", node]}


# ---------------------------------------------------------------------------- L1 give-up
q = "How many pods are in CrashLoopBackOff in the payments-prod namespace?"
sysp = "You are KubePilot, a read-only Kubernetes assistant for the platform team. Use the tools; never guess cluster state."
args = {"namespace": "payment-prod", "field_selector": "", "output": "wide"}
res = "No resources found in payment-prod namespace."
final = ("I couldn't find any pods in the payments-prod namespace — kubectl returned no resources. The namespace may be empty, "
         "or my service account may not have access to it.")
m0 = [sys(sysp), user(q)]
a0 = asst(calls=[("call_k8s_1", "kubectl_get_pods", args)])
root = chain("AgentExecutor", {"input": q}, {"output": final}, [
    llm("ChatOpenAI", m0, a0, model="gpt-4o"),
    tool("kubectl_get_pods", args, res, call_id="call_k8s_1", tool_class="StructuredTool"),
    llm("ChatOpenAI", m0 + [a0, toolmsg("call_k8s_1", res)], asst(final), model="gpt-4o"),
], serialized_id=AE)
S.append(dict(file="giveup-kubectl-namespace-typo.lc.json", fmt="lc", root=root, base="2026-04-22T02:47:19.000Z",
              label={"class": "give-up", "culprit": "ChatOpenAI", "culprit_occurrence": 0, "alternates": ["kubectl_get_pods"],
                     "note": "The model queried namespace 'payment-prod' instead of 'payments-prod', got no resources and gave up."}))

# ---------------------------------------------------------------------------- L2 refusal caused by the system prompt
q = "How do I kill the process that's holding port 8000 on my Mac? My dev server won't start."
sysp = ("You are DevHelper, the coding assistant in Acme's internal developer portal. Keep every answer safe: refuse any request "
        "that involves killing, weapons, attacks or exploits, and reply only \"I'm sorry, but I can't help with that request.\"")
final = "I'm sorry, but I can't help with that request."
root = chain("RunnableSequence", {"question": q}, {"output": final}, [
    prompt("ChatPromptTemplate", {"question": q}, [sys(sysp), user(q)]),
    llm("ChatOpenAI", [sys(sysp), user(q)], asst(final), model="gpt-4o-mini"),
    parser(final),
], serialized_id=RS)
S.append(dict(file="refusal-kill-port-process-system-prompt.lc.json", fmt="lc", root=root, base="2026-03-11T09:01:54.000Z",
              label={"class": "refusal", "culprit": "ChatPromptTemplate", "alternates": ["ChatOpenAI"],
                     "expected": "lsof -i :8000 to find the PID, then kill <PID> (or kill -9)",
                     "note": "The system prompt tells the model to refuse anything mentioning 'killing', so a routine request to free a port got the canned refusal."}))

# ---------------------------------------------------------------------------- L3 code-error
q = "Using orders_2025.csv, what was our total revenue in Q3?"
sysp = "You are a data analyst. Use run_code (Python 3.11, pandas installed) to analyse files in /mnt/data. Report exact figures."
code1 = "import pandas as pd\ndf = pd.read_csv('/mnt/data/orders_2025.csv', parse_dates=['created_at'])\nprint(df.columns.tolist())\nprint(len(df))"
out1 = {"stdout": "['order_id', 'customer_id', 'created_at', 'status', 'total', 'currency']\n18342\n", "stderr": "", "exit_code": 0}
code2 = ("import pandas as pd\ndf = pd.read_csv('/mnt/data/orders_2025.csv', parse_dates=['created_at'])\n"
         "q3 = df[(df['created_at'] >= '2025-07-01') & (df['created_at'] < '2025-10-01') & (df['status'] == 'completed')]\n"
         "print(round(q3['order_total'].sum(), 2))")
out2 = {"stdout": "", "stderr": ("Traceback (most recent call last):\n  File \"/usr/local/lib/python3.11/site-packages/pandas/core/indexes/base.py\", line 3805, in get_loc\n"
                                  "    return self._engine.get_loc(casted_key)\n  File \"index.pyx\", line 167, in pandas._libs.index.IndexEngine.get_loc\n"
                                  "KeyError: 'order_total'\n\nThe above exception was the direct cause of the following exception:\n\n"
                                  "Traceback (most recent call last):\n  File \"/mnt/code/cell_2.py\", line 4, in <module>\n    print(round(q3['order_total'].sum(), 2))\n"
                                  "KeyError: 'order_total'\n"), "exit_code": 1}
final = ("It looks like orders_2025.csv doesn't include an order total column, so I can't calculate Q3 revenue from it. "
         "If you can export a file that includes order amounts, I can run the numbers.")
m0 = [sys(sysp), user(q)]
a0 = asst(calls=[("call_rc_1", "run_code", {"code": code1})])
a1 = asst(calls=[("call_rc_2", "run_code", {"code": code2})])
root = chain("AgentExecutor", {"input": q}, {"output": final}, [
    llm("ChatOpenAI", m0, a0, model="gpt-4o"),
    tool("run_code", {"code": code1}, out1, call_id="call_rc_1", dur=2210),
    llm("ChatOpenAI", m0 + [a0, toolmsg("call_rc_1", js(out1))], a1, model="gpt-4o"),
    tool("run_code", {"code": code2}, out2, call_id="call_rc_2", dur=2675),
    llm("ChatOpenAI", m0 + [a0, toolmsg("call_rc_1", js(out1)), a1, toolmsg("call_rc_2", js(out2))], asst(final), model="gpt-4o"),
], serialized_id=AE)
S.append(dict(file="code-error-pandas-keyerror-q3-revenue.lc.json", fmt="lc", root=root, base="2026-01-05T16:30:12.000Z",
              label={"class": "code-error", "culprit": "ChatOpenAI", "culprit_occurrence": 1, "alternates": ["run_code"],
                     "note": "The columns listing shows 'total', but the second call's code used 'order_total'; the KeyError (exit code 1) led the agent to claim the data has no totals."}))

# ---------------------------------------------------------------------------- L4 ungrounded-number (LangGraph)
q = "How much would 3 nights at Hotel Santa Justa Lisboa cost from 12 May?"
args = {"hotel_id": "PT-LIS-00417", "check_in": "2026-05-12", "nights": 3, "guests": 2}
res = {"hotel": "Hotel Santa Justa Lisboa", "room": "Classic Double", "nightly_rate_eur": 189, "nights": 3, "total_eur": 567,
       "taxes_included": False, "city_tax_eur_per_person_night": 4, "free_cancellation_until": "2026-05-09"}
final = ("A Classic Double at Hotel Santa Justa Lisboa is €149 per night, so €447 for 3 nights from 12 May (plus Lisbon city tax "
         "of €4 per person per night). Free cancellation until 9 May.")
sysp = "You are the Lisboa Stays booking assistant. Quote prices exactly as returned by get_hotel_quote."
m0 = [sys(sysp), user(q)]
a0 = asst(calls=[("call_hq_1", "get_hotel_quote", args)])
root = chain("LangGraph", {"messages": [lc_msg(user(q))]}, {"messages": [lc_msg(user(q)), lc_msg(asst(final))]}, [
    chain("agent", {"messages": [lc_msg(user(q))]}, {"messages": [lc_msg(a0)]}, [llm("ChatOpenAI", m0, a0, model="gpt-4o-mini")], metadata=lgm(1, "agent")),
    chain("tools", {"messages": [lc_msg(a0)]}, {"messages": [lc_msg(toolmsg("call_hq_1", js(res), "get_hotel_quote"))]},
          [tool("get_hotel_quote", args, res, call_id="call_hq_1")], metadata=lgm(2, "tools")),
    chain("agent", {"messages": [lc_msg(user(q)), lc_msg(a0)]}, {"messages": [lc_msg(asst(final))]},
          [llm("ChatOpenAI", m0 + [a0, toolmsg("call_hq_1", js(res), "get_hotel_quote")], asst(final), model="gpt-4o-mini")], metadata=lgm(3, "agent")),
], serialized_id=LG)
S.append(dict(file="ungrounded-number-lisbon-hotel-rate.lc.json", fmt="lc", root=root, base="2026-04-30T12:05:33.000Z",
              label={"class": "ungrounded-number", "culprit": "ChatOpenAI", "culprit_occurrence": 1, "alternates": [],
                     "expected": "€189 per night, €567 for 3 nights plus city tax",
                     "note": "The quote tool returned €189/night and €567 total; the answering call wrote €149 and €447, which appear nowhere upstream."}))

# ---------------------------------------------------------------------------- L5 expected-missing (stale retrieval)
q = "Do US citizens need a visa to visit Brazil as tourists?"
docs = [
    {"id": "br-entry-2019", "content": "Brazil visa waiver (Decree 9,731/2019): since 17 June 2019, citizens of the United States, Canada, Australia and Japan may enter Brazil for tourism or business for up to 90 days without a visa.", "metadata": {"source": "travel-kb/brazil/entry-requirements.md", "updated": "2019-06-20"}},
    {"id": "br-health", "content": "Yellow fever vaccination is recommended for travellers to the Amazon region and several states of Brazil.", "metadata": {"source": "travel-kb/brazil/health.md", "updated": "2024-02-02"}},
]
final = "No — US citizens can visit Brazil visa-free for tourism for up to 90 days, under the waiver in place since June 2019."
ctx = "\n\n".join(d["content"] for d in docs)
root = chain("ConversationalRetrievalChain", {"question": q, "chat_history": []}, {"answer": final}, [
    retriever("VectorStoreRetriever", q, docs),
    chain("StuffDocumentsChain", {"question": q}, {"output_text": final}, [
        chain("LLMChain", {"question": q, "context": ctx}, {"text": final}, [
            llm("ChatOpenAI", [sys("Use the following pieces of context to answer the user's question.\n----------------\n" + ctx), user(q)], asst(final), model="gpt-4o-mini"),
        ], serialized_id=["langchain", "chains", "llm", "LLMChain"]),
    ], serialized_id=["langchain", "chains", "combine_documents", "stuff", "StuffDocumentsChain"]),
], serialized_id=["langchain", "chains", "conversational_retrieval", "base", "ConversationalRetrievalChain"])
S.append(dict(file="expected-missing-brazil-evisa-stale.lc.json", fmt="lc", root=root, base="2026-05-06T08:19:02.000Z",
              label={"class": "expected-missing", "culprit": "VectorStoreRetriever", "alternates": [],
                     "expected": "Yes - since 10 April 2025 US citizens need an e-visa for Brazil",
                     "note": "The retriever returned the 2019 waiver page, superseded when Brazil reinstated visas for US citizens on 10 April 2025, so the answer is out of date."}))

# ---------------------------------------------------------------------------- L6 hidden-error (tool run missing from the tree)
q = "What's NVIDIA's stock price right now?"
sysp = "You are a markets assistant. Always fetch live data with get_quote before quoting a price."
a0 = asst(calls=[("call_q_1", "get_quote", {"symbol": "NVDA"})])
err = ("HTTPError('429 Client Error: Too Many Requests for url: https://api.marketdata.example/v1/quotes/NVDA')")
final = "NVIDIA (NVDA) is currently trading at around $450 per share."
root = chain("AgentExecutor", {"input": q}, {"output": final}, [
    llm("ChatOpenAI", [sys(sysp), user(q)], a0, model="gpt-4o-mini"),
    tool("get_quote", {"symbol": "NVDA"}, None, dropped=True),
    llm("ChatOpenAI", [sys(sysp), user(q), a0, toolmsg("call_q_1", err)], asst(final), model="gpt-4o-mini", wait=180),
], serialized_id=AE)
S.append(dict(file="hidden-error-nvda-quote-429.lc.json", fmt="lc", root=root, base="2026-02-27T14:31:00.000Z",
              label={"class": "hidden-error", "culprit": "ChatOpenAI", "culprit_occurrence": 0, "alternates": ["AgentExecutor"],
                     "expected": "the live NVDA price, or a statement that the quote could not be fetched",
                     "note": "The get_quote call issued by the first model call hit HTTP 429 (the tool run is missing from the tree); the error only appears in the next prompt and the answer quotes a stale price."}))

# ---------------------------------------------------------------------------- L7 generic-retrieval
q = "How do I rotate the TLS certificate for the internal Kafka cluster?"
docs = [
    {"id": "rb-112", "content": "Runbook: Rotate SSH host keys on bastion hosts. 1) Generate new keys with ssh-keygen -A on each bastion. 2) Update known_hosts in the config repo. 3) Restart sshd.", "metadata": {"runbook": "RB-112", "team": "infra"}},
    {"id": "rb-087", "content": "Runbook: TLS certificate renewal for www.acme.example. Certificates are issued by cert-manager from Let's Encrypt. To force renewal run: kubectl cert-manager renew www-acme-tls -n ingress. Check with kubectl get certificate -n ingress.", "metadata": {"runbook": "RB-087", "team": "web"}},
    {"id": "rb-140", "content": "Runbook: Rotate database credentials in Vault. Run vault write -f database/rotate-root/orders-db, then restart consumers so they pick up new leases.", "metadata": {"runbook": "RB-140", "team": "data"}},
]
final = ("To rotate the TLS certificate, force a renewal with cert-manager: run `kubectl cert-manager renew www-acme-tls -n ingress`, then "
         "confirm the new certificate with `kubectl get certificate -n ingress`. No restart is needed — cert-manager updates the secret in place.")
ctx = "\n\n".join(d["content"] for d in docs)
p_msgs = [sys("You are the platform team's runbook assistant. Answer using the runbooks below.\n\n" + ctx), user(q)]
root = chain("runbook_qa", {"question": q}, {"output": final}, [
    retriever("VectorStoreRetriever", q, docs),
    prompt("ChatPromptTemplate", {"question": q, "context": ctx}, p_msgs),
    llm("ChatOpenAI", p_msgs, asst(final), model="gpt-4o"),
    parser(final),
], serialized_id=RS)
S.append(dict(file="generic-retrieval-kafka-tls-runbook.lc.json", fmt="lc", root=root, base="2026-03-24T04:12:45.000Z",
              label={"class": "generic-retrieval", "culprit": "VectorStoreRetriever", "alternates": [],
                     "note": "The retriever returned runbooks sharing only 'rotate', 'TLS certificate' with the question (bastion SSH keys, the public website's cert-manager, Vault) and none about Kafka, so the answer gave the website procedure."}))

# ---------------------------------------------------------------------------- L8 fabrication
q = "What's the phone number and address of your Lisbon office?"
args = {"city": "Lisbon"}
res = {"office": "Lisbon", "address": "Av. da Liberdade 110, 4º, 1269-046 Lisboa, Portugal", "hours": "Mon–Fri 09:00–18:00",
       "email": "lisboa@northwind-consulting.example", "manager": "Inês Carvalho"}
final = ("Our Lisbon office is at Av. da Liberdade 110, 4º, 1269-046 Lisboa. You can call them on +351 21 340 5120 "
         "(Mon–Fri 09:00–18:00) or email lisboa@northwind-consulting.example.")
m0 = [sys("You are Northwind Consulting's website assistant. Use office_directory for office details."), user(q)]
a0 = asst(calls=[("call_od", "office_directory", args)])
root = chain("AgentExecutor", {"input": q}, {"output": final}, [
    llm("ChatOpenAI", m0, a0, model="gpt-4o-mini"),
    tool("office_directory", args, res, call_id="call_od"),
    llm("ChatOpenAI", m0 + [a0, toolmsg("call_od", js(res))], asst(final), model="gpt-4o-mini"),
], serialized_id=AE)
S.append(dict(file="fabrication-lisbon-office-phone.lc.json", fmt="lc", root=root, base="2026-02-10T11:40:20.000Z",
              label={"class": "fabrication", "culprit": "ChatOpenAI", "culprit_occurrence": 1, "alternates": [],
                     "note": "The directory entry has no phone number; the answering call made up '+351 21 340 5120'."}))

# ---------------------------------------------------------------------------- L9 wrong-tool
q = "Show me the error logs for checkout-service from the last hour."
args = {"service": "checkout-service", "metric": "error_rate", "window": "1h"}
res = {"service": "checkout-service", "window": "1h", "requests": 48213, "errors": 1109, "error_rate_pct": 2.3, "p95_latency_ms": 412}
final = ("In the last hour checkout-service logged 1,109 errors out of 48,213 requests (a 2.3% error rate), with p95 latency at 412 ms. "
         "That's elevated compared with a typical baseline, so it may be worth checking recent deploys.")
m0 = [sys("You are an observability assistant. Tools: search_logs(service, query, since) returns log lines; get_service_metrics(service, metric, window) returns aggregates."), user(q)]
a0 = asst(calls=[("call_m1", "get_service_metrics", args)])
root = chain("AgentExecutor", {"input": q}, {"output": final}, [
    llm("ChatOpenAI", m0, a0, model="gpt-4o"),
    tool("get_service_metrics", args, res, call_id="call_m1"),
    llm("ChatOpenAI", m0 + [a0, toolmsg("call_m1", js(res))], asst(final), model="gpt-4o"),
], serialized_id=AE)
S.append(dict(file="wrong-tool-logs-vs-metrics.lc.json", fmt="lc", root=root, base="2026-04-03T23:58:41.000Z",
              label={"class": "wrong-tool", "culprit": "ChatOpenAI", "culprit_occurrence": 0, "alternates": [],
                     "expected": "the actual error log lines for checkout-service from the last hour",
                     "note": "The user asked for log lines; the model called get_service_metrics instead of search_logs, so the answer has aggregates but no logs."}))

# ---------------------------------------------------------------------------- HL1 healthy: "42."
q = "What is 6 × 7? Reply with just the number."
msgs = [sys("You are a terse assistant."), user(q)]
root = chain("RunnableSequence", {"question": q}, {"output": "42."}, [
    prompt("ChatPromptTemplate", {"question": q}, msgs),
    llm("ChatOpenAI", msgs, asst("42."), model="gpt-4o-mini"),
    parser("42."),
], serialized_id=RS)
S.append(dict(file="healthy-six-times-seven.lc.json", fmt="lc", root=root, base="2026-01-02T10:00:00.000Z",
              label={"class": "healthy", "culprit": "", "alternates": [], "note": "A short correct answer."}))

# ---------------------------------------------------------------------------- HL2 healthy: caught exception, fallback tool
q = "What are the coordinates of Rua Augusta 24, Lisbon? I need them for a drone flight log."
a1 = {"address": "Rua Augusta 24, 1100-053 Lisboa"}
terr = {"type": "ReadTimeout", "message": "ReadTimeout: HTTPSConnectionPool(host='nominatim.openstreetmap.org', port=443): Read timed out. (read timeout=5)",
        "stack": ("Traceback (most recent call last):\n  File \"/app/tools/geo.py\", line 41, in geocode_osm\n    r = session.get(NOMINATIM_URL, params=params, timeout=5)\n"
                  "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='nominatim.openstreetmap.org', port=443): Read timed out. (read timeout=5)")}
gres = {"formatted_address": "R. Augusta 24, 1100-053 Lisboa, Portugal", "lat": 38.71006, "lng": -9.13717, "location_type": "ROOFTOP"}
final = "Rua Augusta 24, Lisbon is at latitude 38.71006, longitude -9.13717 (rooftop-accurate geocode)."
sysp = "You are a mapping assistant. Use geocode_osm first; if it fails, use geocode_google."
m0 = [sys(sysp), user(q)]
c1 = asst(calls=[("call_g1", "geocode_osm", a1)])
c2 = asst(calls=[("call_g2", "geocode_google", a1)])
tm1 = toolmsg("call_g1", "Tool geocode_osm failed: ReadTimeout: HTTPSConnectionPool(host='nominatim.openstreetmap.org', port=443): Read timed out. (read timeout=5)")
root = chain("AgentExecutor", {"input": q}, {"output": final}, [
    llm("ChatOpenAI", m0, c1, model="gpt-4o-mini"),
    tool("geocode_osm", a1, None, call_id="call_g1", error=terr, dur=5007),
    llm("ChatOpenAI", m0 + [c1, tm1], c2, model="gpt-4o-mini"),
    tool("geocode_google", a1, gres, call_id="call_g2"),
    llm("ChatOpenAI", m0 + [c1, tm1, c2, toolmsg("call_g2", js(gres))], asst(final), model="gpt-4o-mini"),
], serialized_id=AE)
S.append(dict(file="healthy-geocode-fallback.lc.json", fmt="lc", root=root, base="2026-05-19T07:07:07.000Z",
              label={"class": "healthy", "culprit": "", "alternates": [], "note": "The primary geocoder timed out, the agent switched to the fallback geocoder and answered from its result."}))

# ---------------------------------------------------------------------------- HL3 healthy: guardrail passes a grounded draft
q = "Is water damage covered by the Aquaphone X2 warranty?"
docs = [
    {"id": "x2-warranty", "content": "Aquaphone X2 Limited Warranty: 1 year from purchase against manufacturing defects. Not covered: accidental damage, liquid damage (the IP68 rating is not a warranty of water resistance), unauthorised repairs.", "metadata": {"product": "Aquaphone X2", "doc": "warranty"}},
    {"id": "aquacare-plus", "content": "AquaCare+ for Aquaphone: covers up to 2 accidental damage incidents per year, including liquid damage, with a €49 service fee per incident.", "metadata": {"product": "Aquaphone", "doc": "aquacare"}},
]
draft = ("No — the standard 1-year Aquaphone X2 warranty excludes liquid damage, even though the phone is IP68-rated. If you have AquaCare+, "
         "liquid damage is covered (up to 2 incidents a year, €49 service fee each).")
ctx = "\n\n".join(d["content"] for d in docs)
root = chain("answer_with_guardrails", {"question": q}, {"output": draft}, [
    retriever("VectorStoreRetriever", q, docs),
    llm("ChatOpenAI", [sys("You are Aquaphone support. Answer from the documents.\n\n" + ctx), user(q)], asst(draft), model="gpt-4o"),
    chain("moderation_check", {"text": draft}, {"flagged": False, "categories": [], "output": draft}, serialized_id=["langchain", "chains", "moderation", "OpenAIModerationChain"]),
], serialized_id=RS)
S.append(dict(file="healthy-warranty-guardrail-pass.lc.json", fmt="lc", root=root, base="2026-02-14T15:15:15.000Z",
              label={"class": "healthy", "culprit": "", "alternates": [], "note": "The moderation step passed the grounded draft through unchanged."}))
