"""OTLP/JSON scenarios with OpenInference attributes."""
from lib import *  # noqa: F401,F403

S = []


def lg_meta(step, node):
    return {"langgraph_step": step, "langgraph_node": node, "langgraph_triggers": [f"branch:to:{node}"], "langgraph_path": ["__pregel_pull", node]}


# ---------------------------------------------------------------------------- O1 give-up (smolagents-style ToolCallingAgent)
q = "What is the orbital period of the exoplanet Kepler-442b?"
sysp = ("You are an expert assistant who can solve any task using tool calls. You will be given a task to solve as best you can. "
        "To do so, you have been given access to the following tools: web_search, final_answer.")
sargs = {"query": "Kepler-452b orbital period days"}
sres = ("## Search Results\n\n[Kepler-452b - Wikipedia](https://en.wikipedia.org/wiki/Kepler-452b)\n"
        "Kepler-452b is an exoplanet orbiting the Sun-like star Kepler-452 about 1,800 light-years from Earth... It orbits its star every 384.84 days.\n\n"
        "[NASA Exoplanet Archive: Kepler-452 b](https://exoplanetarchive.ipac.caltech.edu/overview/Kepler-452b)\n"
        "Orbital Period: 384.843 (+0.007 -0.012) days; Planet Radius: 1.63 Earth radii; Discovery: 2015, Transit.\n\n"
        "[Earth's 'older cousin' Kepler-452b | NASA](https://www.nasa.gov/news/kepler-452b)\n"
        "NASA's Kepler mission has confirmed the first near-Earth-size planet in the habitable zone around a sun-like star...")
final = ("I couldn't find the orbital period of Kepler-442b in my search results — they only covered a different planet, Kepler-452b. "
         "You may want to check the NASA Exoplanet Archive directly.")
m1 = [sys(sysp), user(f"New task:\n{q}")]
a1 = asst(calls=[("call_0", "web_search", sargs)])
obs = toolmsg("call_0", f"Observation:\n{sres}")
a2 = asst(calls=[("call_1", "final_answer", {"answer": final})])
root = agent("ToolCallingAgent.run", {"task": q, "stream": False, "reset": True}, final, [
    chain("Step 1", {"step_number": 1}, {"observations": sres[:200]}, [
        llm("LiteLLMModel.__call__", m1, a1, model="anthropic/claude-3-5-sonnet-20241022", provider="anthropic", system="anthropic"),
        tool("web_search", sargs, sres, description="Performs a web search for a query and returns the top results."),
    ]),
    chain("Step 2", {"step_number": 2}, {"final_answer": final}, [
        llm("LiteLLMModel.__call__", m1 + [a1, obs], a2, model="anthropic/claude-3-5-sonnet-20241022", provider="anthropic", system="anthropic"),
        tool("final_answer", {"answer": final}, final, description="Provides a final answer to the given problem."),
    ]),
], agent_name="ToolCallingAgent")
S.append(dict(file="giveup-kepler-wrong-planet-query.oi.json", fmt="oi", root=root, base="2025-09-30T12:41:08.000Z", service="astro-qa",
              label={"class": "give-up", "culprit": "LiteLLMModel.__call__", "culprit_occurrence": 0, "alternates": ["web_search", "Step 1"],
                     "note": "The model searched for Kepler-452b instead of Kepler-442b, so nothing relevant came back and the agent gave up."}))

# ---------------------------------------------------------------------------- O2 refusal
q = "What's the usual adult dose of ibuprofen for a tension headache?"
docs = [
    {"id": "otc-ibuprofen-200", "content": "Ibuprofen 200 mg tablets (OTC). Adults and children 12 years and over: take 1 tablet every 4 to 6 hours while symptoms persist. If pain or fever does not respond to 1 tablet, 2 tablets may be used. Do not exceed 6 tablets in 24 hours unless directed by a doctor.", "score": 0.89, "metadata": {"source": "labels/ibuprofen-200mg.md"}},
    {"id": "headache-selfcare", "content": "Tension-type headaches usually respond to simple analgesics such as paracetamol or ibuprofen. See a doctor if headaches are frequent, severe, or come with fever, stiff neck or confusion.", "score": 0.81, "metadata": {"source": "guides/headache-self-care.md"}},
]
ctx = "\n\n".join(d["content"] for d in docs)
sysp = ("You are the health information assistant for CarePlus Pharmacy. Answer customer questions about over-the-counter products "
        "using the context below. Suggest seeing a doctor when symptoms are severe or persistent.\n\nContext:\n" + ctx)
final = ("I'm sorry, but I can't provide dosing recommendations for medications. Please consult your doctor or pharmacist "
         "for advice on how much ibuprofen is right for you.")
root = chain("LangGraph", {"messages": [{"role": "user", "content": q}]}, {"messages": [{"role": "user", "content": q}, {"role": "assistant", "content": final}]}, [
    chain("retrieve", {"question": q}, {"context": [d["id"] for d in docs]}, [
        retriever("VectorStoreRetriever", q, docs),
    ], metadata=lg_meta(1, "retrieve")),
    chain("generate", {"question": q}, {"answer": final}, [
        llm("ChatAnthropic", [sys(sysp), user(q)], asst(final), model="claude-3-5-haiku-20241022", provider="anthropic", system="anthropic"),
    ], metadata=lg_meta(2, "generate")),
])
S.append(dict(file="refusal-ibuprofen-otc-dose.oi.json", fmt="oi", root=root, base="2026-02-02T07:55:31.410Z", service="careplus-assistant",
              label={"class": "refusal", "culprit": "ChatAnthropic", "alternates": ["generate"],
                     "expected": "200-400 mg every 4-6 hours, no more than 1,200 mg (6 tablets) in 24 hours",
                     "note": "The system prompt allows OTC questions and the retrieved label gives the dose, yet the model answered with a canned refusal."}))

# ---------------------------------------------------------------------------- O3 guardrail
q = "What was Apple's total revenue in fiscal 2023, and how did it compare with 2022?"
docs = [
    {"id": "aapl-10k-2023-p21", "content": "Total net sales decreased 3% or $11.0 billion during 2023 compared to 2022. Total net sales were $383,285 million in 2023 and $394,328 million in 2022.", "score": 0.92, "metadata": {"filing": "AAPL 10-K FY2023", "page": 21}},
    {"id": "aapl-10k-2023-p22", "content": "iPhone net sales decreased 2% during 2023 compared to 2022 due primarily to lower net sales from non-Pro iPhone models.", "score": 0.77, "metadata": {"filing": "AAPL 10-K FY2023", "page": 22}},
]
draft = ("Apple's total net sales for fiscal 2023 were $383.3 billion, down 3% (about $11.0 billion) from $394.3 billion in fiscal 2022, "
         "according to its 10-K.")
blocked = ("I'm not able to provide investment or financial advice. For guidance about specific securities, please consult a licensed "
           "financial advisor.")
root = agent("finance-copilot", q, blocked, [
    retriever("FilingsRetriever", q, docs),
    llm("ChatOpenAI", [sys("Answer questions about public company filings using only the excerpts provided. Quote figures exactly."),
                       user(q + "\n\nExcerpts:\n" + "\n".join(f"[{d['id']}] {d['content']}" for d in docs))], asst(draft), model="gpt-4o-2024-08-06"),
    guardrail("FinancialAdviceGuard", draft, {"validation_passed": False, "validator": "NoInvestmentAdvice", "on_fail": "fix",
                                              "validated_output": blocked, "reason": "mentions company performance"}),
], agent_name="finance-copilot")
S.append(dict(file="guardrail-apple-revenue-blocked.oi.json", fmt="oi", root=root, base="2026-01-28T14:12:05.999Z", service="finance-copilot",
              label={"class": "guardrail", "culprit": "FinancialAdviceGuard", "alternates": [],
                     "expected": "$383.3 billion in fiscal 2023, down 3% from $394.3 billion in 2022",
                     "note": "The draft quoted the 10-K correctly; the guardrail treated a factual revenue figure as investment advice and replaced it."}))

# ---------------------------------------------------------------------------- O4 code-error
q = "What's the monthly payment on a $420,000 mortgage at 6.125% fixed for 30 years?"
code = ("import numpy_financial as npf\n\nrate = 0.06125 / 12\nn = 30 * 12\npayment = -npf.pmt(rate, n, 420000)\nprint(round(payment, 2))")
out = ("Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nModuleNotFoundError: No module named 'numpy_financial'\n"
       "\n[process exited with code 1]")
final = "Your monthly principal-and-interest payment would be about $2,380 on a $420,000 loan at 6.125% over 30 years."
sysp = "You are a mortgage assistant. For any calculation, write Python and run it with python_repl. Report the printed result."
m0 = [sys(sysp), user(q)]
a0 = asst(calls=[("call_Kc81", "python_repl", {"code": code})])
root = chain("LangGraph", {"messages": [{"role": "user", "content": q}]}, {"messages": [{"role": "assistant", "content": final}]}, [
    chain("agent", {"messages": [q]}, {"messages": ["tool_call python_repl"]}, [llm("ChatOpenAI", m0, a0, model="gpt-4o-mini")], metadata=lg_meta(1, "agent")),
    chain("tools", {"messages": ["tool_call python_repl"]}, {"messages": [out]}, [tool("python_repl", {"code": code}, out, call_id="call_Kc81", dur=1432)], metadata=lg_meta(2, "tools")),
    chain("agent", {"messages": [q, out]}, {"messages": [final]}, [llm("ChatOpenAI", m0 + [a0, toolmsg("call_Kc81", out, "python_repl")], asst(final), model="gpt-4o-mini")], metadata=lg_meta(3, "agent")),
])
S.append(dict(file="code-error-mortgage-numpy-financial.oi.json", fmt="oi", root=root, base="2026-03-18T22:10:45.120Z", service="homeloan-bot",
              label={"class": "code-error", "culprit": "ChatOpenAI", "culprit_occurrence": 0, "alternates": ["python_repl"],
                     "expected": "about $2,551.96 per month",
                     "note": "The model's code imported numpy_financial, which is not installed; the run printed a traceback with exit code 1 and the answer then guessed $2,380."}))

# ---------------------------------------------------------------------------- O5 ungrounded-number
q = "Is /var on web-03 getting close to full?"
df = ("Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p3   50G   45G  4.6G  91% /var\n")
final = ("/var on web-03 is at 78% (about 39G of 50G used), so there's still reasonable headroom. "
         "No action needed right now, but keep an eye on log growth.")
sysp = "You are an SRE assistant with read-only shell access (ssh_exec). Be precise about numbers."
m0 = [sys(sysp), user(q)]
a0 = asst(calls=[("call_df", "ssh_exec", {"host": "web-03", "command": "df -h /var"})])
root = agent("sre-assistant", q, final, [
    llm("ChatOpenAI", m0, a0, model="gpt-4o"),
    tool("ssh_exec", {"host": "web-03", "command": "df -h /var"}, df, call_id="call_df", dur=820),
    llm("ChatOpenAI", m0 + [a0, toolmsg("call_df", df)], asst(final), model="gpt-4o"),
], agent_name="sre-assistant")
S.append(dict(file="ungrounded-number-disk-usage.oi.json", fmt="oi", root=root, base="2026-04-09T03:17:22.500Z", service="opsbot",
              label={"class": "ungrounded-number", "culprit": "ChatOpenAI", "culprit_occurrence": 1, "alternates": [],
                     "expected": "Yes - /var is 91% full (45G of 50G, 4.6G free)",
                     "note": "df reported 91% used; the answering call stated 78% and 39G, numbers that appear nowhere upstream."}))

# ---------------------------------------------------------------------------- O6 inconsistent-samples
q = "Which planet in our solar system has the most known moons?"
samples = [asst("Jupiter, with 95 confirmed moons."),
           asst("Saturn — it has 146 confirmed moons as of 2024, more than any other planet."),
           asst("Saturn has the most, with 146 officially recognised moons after the 2023 announcements.")]
root = chain("trivia_answer", {"question": q}, {"answer": samples[0]["content"]}, [
    llm("OpenAI Chat Completions", [sys("Answer the trivia question in one sentence."), user(q)], samples, model="gpt-4o-mini-2024-07-18"),
    chain("pick_first_choice", {"choices": 3}, {"answer": samples[0]["content"], "index": 0}),
])
S.append(dict(file="inconsistent-samples-most-moons.oi.json", fmt="oi", root=root, base="2025-08-14T17:20:00.250Z", service="quiz-night",
              label={"class": "inconsistent-samples", "culprit": "OpenAI Chat Completions", "alternates": ["pick_first_choice"],
                     "expected": "Saturn (146 confirmed moons)",
                     "note": "The three sampled choices disagree (Jupiter vs Saturn) and the first, minority and outdated, choice became the answer."}))

# ---------------------------------------------------------------------------- O7 expected-missing (stale doc)
q = "How much is standard shipping to Canada?"
docs = [
    {"id": "ship-rates-intl-2022", "content": "International shipping rates. Canada: Standard (6–10 business days) CA$12.99; Express (2–4 business days) CA$29.99. Free standard shipping on orders over CA$150.", "score": 0.88, "metadata": {"source": "help-center/shipping/international-rates.md", "last_updated": "2022-01-04"}},
    {"id": "ship-customs", "content": "Orders to Canada may be subject to duties and taxes collected at delivery.", "score": 0.71, "metadata": {"source": "help-center/shipping/customs.md", "last_updated": "2024-06-10"}},
]
final = "Standard shipping to Canada costs CA$12.99 and takes 6–10 business days. It's free on orders over CA$150."
root = chain("RetrievalQA", {"query": q}, {"result": final}, [
    retriever("ShippingPolicyRetriever", q, docs),
    chain("StuffDocumentsChain", {"input_documents": [d["id"] for d in docs], "question": q}, {"output_text": final}, [
        llm("ChatOpenAI", [sys("Use the following pieces of context to answer the question at the end.\n\n" + "\n\n".join(d["content"] for d in docs)), user(q)], asst(final), model="gpt-4o-mini"),
    ]),
])
S.append(dict(file="expected-missing-canada-shipping-stale.oi.json", fmt="oi", root=root, base="2026-02-25T11:09:43.030Z", service="shop-help",
              label={"class": "expected-missing", "culprit": "ShippingPolicyRetriever", "alternates": [],
                     "expected": "CA$15.99 (6-10 business days)",
                     "note": "The retriever returned the 2022 rate sheet (last_updated 2022-01-04) instead of the current one, so the answer quotes the old CA$12.99 rate."}))

# ---------------------------------------------------------------------------- O8 hidden-error (tool span dropped; ToolNode returns the error)
q = "Has order #55120 shipped yet?"
sysp = "You are the support agent for Lumen Home. Use get_order to look up orders."
m0 = [sys(sysp), user(q)]
a0 = asst(calls=[("call_go_1", "get_order", {"order_id": "55120"})])
err = ("Error: connect ECONNREFUSED 10.0.3.17:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16)\n"
       " Please fix your mistakes.")
final = "I'm sorry, I wasn't able to check order #55120 right now. Please try again in a little while."
root = chain("LangGraph", {"messages": [{"role": "user", "content": q}]}, {"messages": [{"role": "assistant", "content": final}]}, [
    chain("agent", {"messages": [q]}, {"messages": ["tool_call get_order"]}, [llm("ChatOpenAI", m0, a0, model="gpt-4o")], metadata=lg_meta(1, "agent")),
    chain("tools", {"messages": ["tool_call get_order"]}, {"messages": [{"role": "tool", "content": err, "tool_call_id": "call_go_1", "name": "get_order", "status": "error"}]},
          [tool("get_order", {"order_id": "55120"}, None, dropped=True)], metadata=lg_meta(2, "tools")),
    chain("agent", {"messages": [q, err]}, {"messages": [final]}, [llm("ChatOpenAI", m0 + [a0, toolmsg("call_go_1", err, "get_order")], asst(final), model="gpt-4o")], metadata=lg_meta(3, "agent")),
])
S.append(dict(file="hidden-error-order-db-econnrefused.oi.json", fmt="oi", root=root, base="2026-03-05T09:44:12.800Z", service="lumen-support", lang="nodejs",
              label={"class": "hidden-error", "culprit": "tools", "culprit_occurrence": 0, "alternates": ["ChatOpenAI"],
                     "expected": "the shipping status of order #55120",
                     "note": "The get_order call made by the tools node failed with ECONNREFUSED (its span was not exported); the error only survives in the tool message, and the answer apologises."}))

# ---------------------------------------------------------------------------- O9 generic-retrieval (with evaluator)
q = "What's the return window for electronics? I bought headphones 20 days ago."
docs = [
    {"id": "returns-apparel", "content": "Apparel & shoes: return within 30 days of delivery for a full refund. Items must be unworn with tags attached. Return shipping is free.", "score": 0.83, "metadata": {"category": "apparel"}},
    {"id": "returns-furniture", "content": "Furniture returns: you may return furniture within 30 days of delivery. A 15% restocking fee applies to opened items. Schedule a pickup from your orders page.", "score": 0.81, "metadata": {"category": "furniture"}},
    {"id": "returns-general", "content": "How to start a return: go to Orders, choose the item, select a reason and print the prepaid label. Refunds are issued within 5–7 business days after we receive the item.", "score": 0.79, "metadata": {"category": "general"}},
]
final = ("Good news — you can return items within 30 days of delivery, so your headphones (bought 20 days ago) are still eligible. "
         "Go to Orders, choose the item, select a reason and print the prepaid label.")
root = chain("support_rag", {"question": q}, {"answer": final}, [
    retriever("PolicyRetriever", q, docs),
    llm("ChatOpenAI", [sys("You are ShopCo's help assistant. Answer from the policy excerpts only.\n\n" + "\n\n".join(f"[{d['id']}] {d['content']}" for d in docs)), user(q)], asst(final), model="gpt-4o-mini"),
    evaluator("answer_correctness", {"question": q, "answer": final}, {"label": "incorrect", "score": 0.0}),
])
S.append(dict(file="generic-retrieval-electronics-returns.oi.json", fmt="oi", root=root, base="2026-01-09T13:25:50.000Z", service="shopco-help",
              label={"class": "generic-retrieval", "culprit": "PolicyRetriever", "alternates": [],
                     "expected": "Electronics can be returned within 15 days of delivery, so 20 days is too late",
                     "note": "The retriever matched only 'return within N days' wording from apparel/furniture/general pages and never the electronics policy, so the answer applied the 30-day window."}))

# ---------------------------------------------------------------------------- O10 generic-retrieval with reranker
q = "How many days of paternity leave do employees in Germany get?"
cand = [
    {"id": "hr-ie-parental", "content": "Ireland – Parental leave: each parent is entitled to 26 weeks of unpaid parental leave per child, to be taken before the child turns 12.", "score": 0.84},
    {"id": "hr-de-annual", "content": "Germany – Annual leave: employees receive 30 working days of paid annual leave per calendar year (pro rata for part-time).", "score": 0.82},
    {"id": "hr-us-paternity", "content": "United States – Paternity leave: eligible employees may take up to 12 weeks, of which 4 weeks are fully paid by the company.", "score": 0.81},
    {"id": "hr-de-sick", "content": "Germany – Sick leave: continued pay for up to 6 weeks per illness (Entgeltfortzahlung). Provide a doctor's certificate from day 3.", "score": 0.80},
    {"id": "hr-global-loa", "content": "Leave of absence: request any leave type in Workday at least 4 weeks in advance; your manager approves within 5 days.", "score": 0.78},
    {"id": "hr-de-bereavement", "content": "Germany – Special leave: 2 days for the death of a close relative, 1 day for moving house.", "score": 0.77},
]
top = [dict(cand[1], score=0.91), dict(cand[2], score=0.88), dict(cand[5], score=0.62)]
final = ("Employees in Germany receive 30 working days of paid leave per year, which can be used after the birth of a child. "
         "Request it in Workday at least 4 weeks in advance.")
root = chain("hr_assistant", {"question": q}, {"answer": final}, [
    retriever("HRPolicyRetriever", q, cand),
    reranker("CohereRerank", q, cand, top, model="rerank-english-v3.0", top_k=3),
    llm("ChatOpenAI", [sys("You answer HR policy questions for Kestrel GmbH & Co. employees, using only the policy excerpts.\n\n" + "\n".join(d["content"] for d in top)), user(q)],
        asst(final), model="gpt-4o"),
])
S.append(dict(file="generic-retrieval-germany-paternity-rerank.oi.json", fmt="oi", root=root, base="2026-02-16T08:58:11.600Z", service="kestrel-hr-bot",
              label={"class": "generic-retrieval", "culprit": "HRPolicyRetriever", "alternates": ["CohereRerank"],
                     "note": "The retriever returned leave policies that share only 'leave', 'Germany' or 'paternity' with the question (annual leave DE, paternity US), never the German paternity policy, so the answer passed annual leave off as paternity leave."}))

# ---------------------------------------------------------------------------- O11 plan-ignored
q = "Compare VTI and VXUS: which has the lower expense ratio, and which had the higher 1-year return?"
plan = ("1. get_fund_profile(VTI)\n2. get_fund_profile(VXUS)\n3. get_trailing_returns(tickers=[VTI, VXUS], period=1y)\n"
        "4. Answer both parts: expense ratios and 1-year returns.")
p1 = {"ticker": "VTI", "name": "Vanguard Total Stock Market ETF", "expense_ratio_pct": 0.03, "aum_usd_bn": 1790, "holdings": 3587}
p2 = {"ticker": "VXUS", "name": "Vanguard Total International Stock ETF", "expense_ratio_pct": 0.05, "aum_usd_bn": 92, "holdings": 8530}
final = ("VTI has the lower expense ratio at 0.03% versus 0.05% for VXUS. VTI has also been the stronger performer over the past "
         "year, so it comes out ahead on both counts.")
exs = "You are the executor. Follow the plan exactly, one tool call at a time, then answer."
e0 = [sys(exs), user(f"Question: {q}\nPlan:\n{plan}")]
c1 = asst(calls=[("call_fp_1", "get_fund_profile", {"ticker": "VTI"})])
c2 = asst(calls=[("call_fp_2", "get_fund_profile", {"ticker": "VXUS"})])
root = agent("research-assistant", q, final, [
    chain("planner", q, plan, [llm("ChatOpenAI", [sys("Write a numbered plan of tool calls that fully answers the question. Tools: get_fund_profile, get_trailing_returns."), user(q)], asst(plan), model="gpt-4o")]),
    agent("executor", plan, final, [
        llm("ChatOpenAI", e0, c1, model="gpt-4o-mini"),
        tool("get_fund_profile", {"ticker": "VTI"}, p1, call_id="call_fp_1"),
        llm("ChatOpenAI", e0 + [c1, toolmsg("call_fp_1", js(p1))], c2, model="gpt-4o-mini"),
        tool("get_fund_profile", {"ticker": "VXUS"}, p2, call_id="call_fp_2"),
        llm("ChatOpenAI", e0 + [c1, toolmsg("call_fp_1", js(p1)), c2, toolmsg("call_fp_2", js(p2))], asst(final), model="gpt-4o-mini"),
    ], agent_name="executor"),
], agent_name="research-assistant")
S.append(dict(file="plan-ignored-etf-returns-skipped.oi.json", fmt="oi", root=root, base="2026-03-27T15:33:07.070Z", service="fund-research",
              label={"class": "plan-ignored", "culprit": "ChatOpenAI", "culprit_occurrence": 3, "alternates": ["executor"],
                     "note": "Plan step 3 (get_trailing_returns) was skipped: the executor's third call answered after two profiles, asserting a 1-year performance claim with no data."}))

# ---------------------------------------------------------------------------- O12 fabrication
q = "Who was the CMS spokesperson when the Higgs boson discovery was announced?"
wres = ("Higgs boson — On 4 July 2012, the ATLAS and CMS experiments at CERN's Large Hadron Collider announced they had each observed "
        "a new particle in the mass region around 125 GeV. The announcement was made at a seminar at CERN and at the ICHEP 2012 "
        "conference in Melbourne. Peter Higgs and François Englert were awarded the 2013 Nobel Prize in Physics.")
final = ("The CMS spokesperson at the time of the 4 July 2012 announcement was Dr. Michael Hartmann, who presented the CMS results "
         "at the CERN seminar alongside the ATLAS team.")
m0 = [sys("You are a science trivia assistant. Use wikipedia_search when you are not sure."), user(q)]
a0 = asst(calls=[("call_w1", "wikipedia_search", {"query": "Higgs boson discovery announcement 2012 CMS"})])
root = agent("trivia-agent", q, final, [
    llm("ChatOpenAI", m0, a0, model="gpt-4o-mini"),
    tool("wikipedia_search", {"query": "Higgs boson discovery announcement 2012 CMS"}, wres, call_id="call_w1"),
    llm("ChatOpenAI", m0 + [a0, toolmsg("call_w1", wres)], asst(final), model="gpt-4o-mini"),
], agent_name="trivia-agent")
S.append(dict(file="fabrication-cms-spokesperson.oi.json", fmt="oi", root=root, base="2025-07-04T19:00:03.303Z", service="quiz-night",
              label={"class": "fabrication", "culprit": "ChatOpenAI", "culprit_occurrence": 1, "alternates": [],
                     "expected": "Joe Incandela",
                     "note": "The search result names no CMS spokesperson; the answering call invented 'Dr. Michael Hartmann'."}))

# ---------------------------------------------------------------------------- O13 dropped-info
q = "My doctor started me on metformin. How much do I take and when?"
leaflet = ("Metformin hydrochloride 500 mg film-coated tablets — Package leaflet. How to take: Adults: the usual starting dose is one "
           "500 mg tablet two times a day, taken with or after breakfast and the evening meal. Your doctor may increase the dose "
           "gradually; the maximum is 2,000 mg a day. Swallow the tablets whole with a glass of water. Side effects: nausea, diarrhoea, "
           "stomach pain and loss of appetite are very common at the start and usually go away. Do not take if you have severe kidney disease.")
summary = ("Metformin is taken by mouth with meals and swallowed whole with water. Common early side effects are nausea, diarrhoea and "
           "stomach pain, which usually settle. Not suitable for people with severe kidney disease.")
final = ("Metformin is taken with your meals — swallow the tablet whole with a glass of water. Stomach upset is common at first and usually "
         "settles. Follow the exact dose on your prescription label, and ask your pharmacist if anything is unclear.")
root = chain("med_info_pipeline", {"question": q}, {"answer": final}, [
    retriever("LeafletRetriever", "metformin dose how to take", [{"id": "pil-metformin-500", "content": leaflet, "score": 0.93, "metadata": {"product": "Metformin 500 mg", "source": "emc"}}]),
    chain("summarize_leaflet", {"leaflet_id": "pil-metformin-500"}, summary, [
        llm("ChatOpenAI", [sys("Summarise the patient leaflet in 3 short sentences for a layperson."), user(leaflet)], asst(summary), model="gpt-4o-mini"),
    ]),
    chain("answer_question", {"question": q, "summary": summary}, final, [
        llm("ChatOpenAI", [sys("Answer the patient's question using the leaflet summary only."), user(f"Summary: {summary}\n\nQuestion: {q}")], asst(final), model="gpt-4o-mini"),
    ]),
])
S.append(dict(file="dropped-info-metformin-dose-summary.oi.json", fmt="oi", root=root, base="2026-01-31T20:14:27.151Z", service="medinfo",
              label={"class": "dropped-info", "culprit": "ChatOpenAI", "culprit_occurrence": 0, "alternates": ["summarize_leaflet"],
                     "expected": "500 mg twice a day with breakfast and the evening meal (max 2,000 mg/day)",
                     "note": "The leaflet gives the dose but the summariser dropped it, so the answer (which only sees the summary) cannot state it."}))

# ---------------------------------------------------------------------------- HO1 healthy: empty result is the answer
q = "Any open incidents for the payments service?"
args = {"service": "payments", "status": "open"}
res = {"incidents": [], "total": 0, "last_resolved": {"id": "INC-4471", "title": "Elevated 5xx on /v2/charge", "resolved_at": "2026-04-13T14:32:00Z"}}
final = ("There are no open incidents for payments right now. The most recent one, INC-4471 (elevated 5xx on /v2/charge), "
         "was resolved on 13 April at 14:32 UTC.")
m0 = [sys("You are the on-call assistant. Use list_incidents to answer questions about incidents."), user(q)]
a0 = asst(calls=[("call_li", "list_incidents", args)])
root = agent("oncall-assistant", q, final, [
    llm("ChatOpenAI", m0, a0, model="gpt-4o-mini"),
    tool("list_incidents", args, res, call_id="call_li"),
    llm("ChatOpenAI", m0 + [a0, toolmsg("call_li", js(res))], asst(final), model="gpt-4o-mini"),
], agent_name="oncall-assistant")
S.append(dict(file="healthy-no-open-incidents.oi.json", fmt="oi", root=root, base="2026-04-14T06:03:51.777Z", service="opsbot",
              label={"class": "healthy", "culprit": "", "alternates": [], "note": "The empty incident list is the correct answer and the reply is grounded in it."}))

# ---------------------------------------------------------------------------- HO3 healthy: derived sum, evaluator passes
q = "What's the total of my unpaid invoices?"
inv = {"invoices": [{"number": "INV-2031", "due": "2026-03-31", "amount": 1240.00, "currency": "USD"},
                    {"number": "INV-2044", "due": "2026-04-15", "amount": 318.50, "currency": "USD"},
                    {"number": "INV-2058", "due": "2026-04-30", "amount": 2905.75, "currency": "USD"}], "status": "unpaid"}
final = ("You have three unpaid invoices totalling $4,464.25: INV-2031 ($1,240.00, due 31 March), INV-2044 ($318.50, due 15 April) "
         "and INV-2058 ($2,905.75, due 30 April).")
m0 = [sys("You are the billing assistant for Tallyhq. Use list_invoices."), user(q)]
a0 = asst(calls=[("call_inv", "list_invoices", {"status": "unpaid"})])
root = agent("billing-assistant", q, final, [
    llm("ChatOpenAI", m0, a0, model="gpt-4o"),
    tool("list_invoices", {"status": "unpaid"}, inv, call_id="call_inv"),
    llm("ChatOpenAI", m0 + [a0, toolmsg("call_inv", js(inv))], asst(final), model="gpt-4o"),
    evaluator("answer_correctness", {"question": q, "answer": final}, {"label": "correct", "score": 1.0}),
], agent_name="billing-assistant")
S.append(dict(file="healthy-unpaid-invoices-sum.oi.json", fmt="oi", root=root, base="2026-03-20T10:10:10.010Z", service="tallyhq-assistant",
              label={"class": "healthy", "culprit": "", "alternates": [], "note": "The total 4,464.25 is the sum of the three tool amounts; a derived number, not an ungrounded one."}))

# ---------------------------------------------------------------------------- HO2 healthy: long planner/executor run
q = ("I want a long weekend in mid-October (Fri 16 – Mon 19 Oct) from London. Compare Lisbon, Seville and Valencia on typical weather, "
     "return flight price and a mid-range hotel, and recommend one.")
plan = ("1. For each city (Lisbon, Seville, Valencia): get_climate(city, month=10)\n2. For each city: search_fares(LON → city, 2026-10-16 / 2026-10-19)\n"
        "3. For each city: hotel_rates(city, 2026-10-16, nights=3, tier=mid)\n4. Compare and recommend.")
data = {
    "Lisbon": ({"city": "Lisbon", "month": 10, "avg_high_c": 22, "avg_low_c": 15, "rain_days": 7, "sunshine_h": 7.1},
               {"route": "LON-LIS", "cheapest_return_gbp": 142, "carrier": "TAP", "duration": "2h45"},
               {"city": "Lisbon", "tier": "mid", "avg_nightly_eur": 138, "sample": "Hotel Lis Baixa"}),
    "Seville": ({"city": "Seville", "month": 10, "avg_high_c": 26, "avg_low_c": 14, "rain_days": 5, "sunshine_h": 7.6},
                {"route": "LON-SVQ", "cheapest_return_gbp": 118, "carrier": "Vueling", "duration": "2h50"},
                {"city": "Seville", "tier": "mid", "avg_nightly_eur": 121, "sample": "Hotel Amadeus Sevilla"}),
    "Valencia": ({"city": "Valencia", "month": 10, "avg_high_c": 24, "avg_low_c": 15, "rain_days": 6, "sunshine_h": 6.5},
                 {"route": "LON-VLC", "cheapest_return_gbp": 96, "carrier": "easyJet", "duration": "2h20"},
                 {"city": "Valencia", "tier": "mid", "avg_nightly_eur": 109, "sample": "Hotel Ad Hoc Monumental"}),
}
final = ("Here's how they compare for 16–19 October:\n\n"
         "• Seville — warmest (avg high 26°C, 5 rain days), flights from £118 return, mid-range hotels about €121/night.\n"
         "• Valencia — 24°C, 6 rain days, cheapest flights at £96 and hotels around €109/night.\n"
         "• Lisbon — 22°C, 7 rain days, flights from £142, hotels about €138/night.\n\n"
         "Recommendation: Valencia is the best value — for three nights you'd pay roughly £96 + €327 — while Seville is the pick if "
         "warm weather matters most (about £118 + €363).")
exs = "You are the executor. Work through the plan one tool call per turn. When every step is done, write the comparison."
msgs = [sys(exs), user(f"Request: {q}\n\nPlan:\n{plan}")]
steps = []
n = 0
calls = []
for city in ("Lisbon", "Seville", "Valencia"):
    calls.append(("get_climate", {"city": city, "month": 10}, data[city][0]))
for city, code in (("Lisbon", "LIS"), ("Seville", "SVQ"), ("Valencia", "VLC")):
    calls.append(("search_fares", {"origin": "LON", "destination": code, "depart": "2026-10-16", "return": "2026-10-19"}, data[city][1]))
for city in ("Lisbon", "Seville", "Valencia"):
    calls.append(("hotel_rates", {"city": city, "check_in": "2026-10-16", "nights": 3, "tier": "mid"}, data[city][2]))
for i, (tname, targs, tres) in enumerate(calls):
    cid = f"call_{tname[:3]}_{i:02d}"
    a = asst(calls=[(cid, tname, targs)])
    steps.append(chain(f"Iteration {i + 1}", {"iteration": i + 1}, {"tool": tname}, [
        llm("ChatOpenAI", list(msgs), a, model="gpt-4o-mini"),
        tool(tname, targs, tres, call_id=cid),
    ]))
    msgs = msgs + [a, toolmsg(cid, js(tres))]
steps.append(chain(f"Iteration {len(calls) + 1}", {"iteration": len(calls) + 1}, {"final": True}, [llm("ChatOpenAI", list(msgs), asst(final), model="gpt-4o-mini")]))
root = agent("trip-research", q, final, [
    chain("planner", q, plan, [llm("ChatOpenAI", [sys("Write a numbered plan of tool calls for the request. Tools: get_climate, search_fares, hotel_rates."), user(q)], asst(plan), model="gpt-4o")]),
    agent("executor", plan, final, steps, agent_name="executor"),
], agent_name="trip-research")
S.append(dict(file="healthy-long-weekend-comparison.oi.json", fmt="oi", root=root, base="2026-06-30T18:22:40.404Z", service="wayfarer-research",
              label={"class": "healthy", "culprit": "", "alternates": [],
                     "note": "Every planned lookup ran, and the comparison (including the derived three-night totals 3 x 109 = 327 and 3 x 121 = 363) is grounded in the tool results."}))
