"""OTLP/JSON scenarios with OpenTelemetry GenAI attributes (Traceloop/OpenLLMetry-style entity attributes on workflow spans)."""
from lib import *  # noqa: F401,F403


def fn(name, desc, props, required=None):
    return {"type": "function", "function": {"name": name, "description": desc,
            "parameters": {"type": "object", "properties": props, "required": required or list(props)}}}


S = []

# ---------------------------------------------------------------------------- G1 give-up
q = "Can you find me a flight from Lisbon to Reykjavik on March 14? Economy, 1 adult."
sysp = ("You are Wayfarer, a travel booking assistant. Use the tools to look up live availability. "
        "Airport codes must be IATA codes. Today is 2026-02-20.")
tools = [fn("search_flights", "Search scheduled flights between two airports on a date.",
            {"origin": {"type": "string", "description": "IATA code"}, "destination": {"type": "string", "description": "IATA code"},
             "date": {"type": "string", "description": "YYYY-MM-DD"}, "cabin": {"type": "string"}, "adults": {"type": "integer"}})]
args = {"origin": "LIS", "destination": "KEF", "date": "2025-03-14", "cabin": "economy", "adults": 1}
res = {"query": args, "results": [], "count": 0, "currency": "EUR"}
final = ("I'm sorry — I couldn't find any flights from Lisbon to Reykjavik on March 14 in economy. "
         "It's possible there's no service on that date. Would you like me to check March 13 or March 15 instead?")
root = agent("travel-assistant", {"message": q}, {"reply": final}, [
    llm("chat", [sys(sysp), user(q)], asst(calls=[("call_7Qm2cXw1", "search_flights", args)]), model="gpt-4o", tool_defs=tools),
    tool("search_flights", args, res, call_id="call_7Qm2cXw1", description="Search scheduled flights between two airports on a date."),
    llm("chat", [sys(sysp), user(q), asst(calls=[("call_7Qm2cXw1", "search_flights", args)]), toolmsg("call_7Qm2cXw1", js(res))],
        asst(final), model="gpt-4o", tool_defs=tools),
], agent_name="Wayfarer", workflow="travel-assistant")
S.append(dict(file="giveup-flights-past-date.genai.json", fmt="genai", root=root, base="2026-02-20T09:14:03.112Z",
              service="wayfarer-api", app_scope="wayfarer.agent",
              label={"class": "give-up", "culprit": "chat gpt-4o", "culprit_occurrence": 0, "alternates": ["execute_tool search_flights"],
                     "note": "Today is 2026-02-20 but the model searched 2025-03-14 (last year), so the search returned nothing and the answer gave up."}))

# ---------------------------------------------------------------------------- G2 guardrail
q = "What's the statute of limitations for suing over a breach of a written contract in California?"
draft = ("In California, an action for breach of a written contract generally must be filed within four years "
         "(Code of Civil Procedure § 337(a)). For oral contracts the period is two years (§ 339). The clock usually "
         "starts when the breach occurs, not when the contract was signed.")
blocked = "I'm sorry, but I can't help with that request. For questions about legal matters, please consult a licensed attorney."
root = agent("legal-faq", {"question": q}, {"answer": blocked}, [
    N("chain", "retrieve_statutes", [
        tool("statute_search", {"query": "California statute of limitations written contract", "jurisdiction": "CA", "limit": 3},
             [{"citation": "Cal. Code Civ. Proc. § 337(a)", "text": "Within four years: (a) An action upon any contract, obligation or liability founded upon an instrument in writing..."},
              {"citation": "Cal. Code Civ. Proc. § 339(1)", "text": "Within two years: 1. An action upon a contract, obligation or liability not founded upon an instrument of writing..."}],
             call_id="call_s1"),
    ], input={"question": q}, output={"hits": 2}),
    llm("chat", [sys("You answer general questions about US law for a public legal-information site. Cite statutes. Do not give advice on a specific person's case."),
                 user(q + "\n\nSources:\n[1] Cal. Code Civ. Proc. § 337(a): Within four years: (a) An action upon any contract, obligation or liability founded upon an instrument in writing...\n[2] Cal. Code Civ. Proc. § 339(1): Within two years: 1. An action upon a contract, obligation or liability not founded upon an instrument of writing...")],
        asst(draft), model="gpt-4o-mini"),
    chain("content_moderation", {"text": draft, "policy": "legal-v3"},
          {"flagged": True, "categories": {"legal_advice": 0.71, "self_harm": 0.0, "violence": 0.0}, "threshold": 0.5,
           "action": "replace", "replacement": blocked}),
], agent_name="legal-faq", workflow="legal-faq")
S.append(dict(file="guardrail-legal-statute-blocked.genai.json", fmt="genai", root=root, base="2026-01-07T16:40:51.020Z",
              service="lawfaq-web", app_scope="lawfaq",
              label={"class": "guardrail", "culprit": "content_moderation.task", "alternates": [],
                     "note": "The draft answer was correct and cited the statute; the moderation step flagged general legal information as advice and replaced it with a refusal."}))

# ---------------------------------------------------------------------------- G3 code-error
q = ("Here are my titration readings in mL: 24.31, 24.28, 24.35, 24.30, 24.42, 24.29, 24.33, 24.31. "
     "What's the mean and the sample standard deviation?")
code = ("import statistics\n\nreadings = [24.31, 24.28, 24.35, 24.30, 24.42, 24.29, 24.33, 24.31]\n"
        "mean = statistics.mean(readings)\nsd = statistics.stdev(readings, ddof=1)\nprint(f\"mean={mean:.4f} sd={sd:.4f}\")\n")
out = {"stdout": "", "stderr": "Traceback (most recent call last):\n  File \"/tmp/sandbox/main.py\", line 5, in <module>\n    sd = statistics.stdev(readings, ddof=1)\n         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nTypeError: stdev() got an unexpected keyword argument 'ddof'\n",
       "exit_code": 1, "duration_ms": 41}
final = ("The mean of your eight readings is about 24.32 mL. I wasn't able to compute the standard deviation because the "
         "calculation hit an error, but the readings are tightly clustered, so the spread is small.")
sysp = "You are a lab assistant with a Python sandbox (run_python). Always compute numbers with code."
tools = [fn("run_python", "Run Python 3.12 code in a sandbox and return stdout, stderr and exit code.", {"code": {"type": "string"}})]
root = agent("lab-assistant", {"message": q}, {"reply": final}, [
    llm("chat", [sys(sysp), user(q)], asst("Let me compute that.", calls=[("call_py_01", "run_python", {"code": code})]), model="gpt-4o", tool_defs=tools),
    tool("run_python", {"code": code}, out, call_id="call_py_01", dur=612),
    llm("chat", [sys(sysp), user(q), asst("Let me compute that.", calls=[("call_py_01", "run_python", {"code": code})]), toolmsg("call_py_01", js(out))],
        asst(final), model="gpt-4o", tool_defs=tools),
], agent_name="lab-assistant", workflow="lab-assistant")
S.append(dict(file="code-error-stdev-ddof.genai.json", fmt="genai", root=root, base="2025-11-03T13:02:44.870Z",
              service="benchmate", app_scope="benchmate.sandbox",
              label={"class": "code-error", "culprit": "chat gpt-4o", "culprit_occurrence": 0, "alternates": ["execute_tool run_python"],
                     "note": "The model wrote statistics.stdev(..., ddof=1), which is numpy's keyword; the code crashed with exit code 1 and the answer gave up on the standard deviation."}))

# ---------------------------------------------------------------------------- G4 ungrounded-number
q = "How much is 2,500 euros in US dollars right now?"
r = {"base": "EUR", "quote": "USD", "rate": 1.0842, "timestamp": "2026-03-02T10:15:00Z", "source": "ECB reference + intraday"}
final = "At the current rate of 1.0842, 2,500 EUR is about 2,615.50 USD."
sysp = "You are a banking assistant for Northbank. Use get_exchange_rate for any conversion. Show the rate you used."
tools = [fn("get_exchange_rate", "Latest mid-market FX rate.", {"base": {"type": "string"}, "quote": {"type": "string"}})]
root = agent("fx-helper", {"message": q}, {"reply": final}, [
    llm("chat", [sys(sysp), user(q)], asst(calls=[("call_fx_9a", "get_exchange_rate", {"base": "EUR", "quote": "USD"})]), model="gpt-4o-mini", tool_defs=tools),
    tool("get_exchange_rate", {"base": "EUR", "quote": "USD"}, r, call_id="call_fx_9a"),
    llm("chat", [sys(sysp), user(q), asst(calls=[("call_fx_9a", "get_exchange_rate", {"base": "EUR", "quote": "USD"})]), toolmsg("call_fx_9a", js(r))],
        asst(final), model="gpt-4o-mini", tool_defs=tools),
], agent_name="northbank-assistant", workflow="fx-helper")
S.append(dict(file="ungrounded-number-eur-usd.genai.json", fmt="genai", root=root, base="2026-03-02T10:15:02.004Z",
              service="northbank-chat", app_scope="northbank.assistant", lang="nodejs",
              label={"class": "ungrounded-number", "culprit": "chat gpt-4o-mini", "culprit_occurrence": 1, "alternates": [],
                     "expected": "about 2,710.50 USD",
                     "note": "The tool returned rate 1.0842 (2,500 x 1.0842 = 2,710.50) but the answering call wrote 2,615.50, a number found nowhere upstream."}))

# ---------------------------------------------------------------------------- G5 inconsistent-samples
q = "I'm allergic to penicillin. My dentist prescribed amoxicillin after an extraction — is that OK to take?"
s1 = asst("No. Amoxicillin is a penicillin-class (aminopenicillin) antibiotic, so a penicillin allergy generally means you should not take it. Contact your dentist before the first dose and ask for an alternative such as clindamycin or azithromycin.")
s2 = asst("Yes, amoxicillin is generally considered safe for people with a penicillin allergy, since it is a different antibiotic. Take it as prescribed and watch for any rash.")
s3 = asst("You should not take it without checking first: amoxicillin belongs to the penicillin family and cross-reacts. Call your dentist or pharmacist today for a non-penicillin alternative.")
final = s2["content"]
sysp = "You are a careful pharmacist assistant. Answer medication questions clearly for patients."
root = agent("ask-pharmacist", {"question": q}, {"answer": final}, [
    N("chain", "build_prompt", [], input={"question": q}, output={"template": "patient_med_question_v2"}),
    llm("chat", [sys(sysp), user(q)], [s1, s2, s3], model="gpt-4o", temperature=1.0),
    chain("select_response", {"strategy": "max_mean_logprob", "candidates": 3}, {"mean_logprobs": [-0.412, -0.219, -0.371], "selected_index": 1, "answer": final}),
], agent_name="pharmacist-assistant", workflow="ask-pharmacist")
S.append(dict(file="inconsistent-samples-amoxicillin.genai.json", fmt="genai", root=root, base="2026-01-19T21:03:10.455Z",
              service="rx-helper", app_scope="rx_helper",
              label={"class": "inconsistent-samples", "culprit": "chat gpt-4o", "alternates": ["select_response.task"],
                     "expected": "No - amoxicillin is a penicillin; do not take it without asking for an alternative",
                     "note": "The sampled choices contradict each other (two say do not take it, one says it is safe) and the run returned the unsafe minority sample."}))

# ---------------------------------------------------------------------------- G6 expected-missing (writer drops key fact)
q = "When was the Hubble Space Telescope launched, and which Space Shuttle carried it up?"
facts = ("Hubble Space Telescope — launched 24 April 1990 on mission STS-31 aboard Space Shuttle Discovery; "
         "deployed into low Earth orbit on 25 April 1990 at about 540 km altitude. Servicing missions: 1993, 1997, 1999, 2002, 2009.")
notes = ("Findings: Hubble launched 24 April 1990 (STS-31, Space Shuttle Discovery), deployed 25 April 1990. "
         "Five servicing missions 1993–2009.")
final = ("The Hubble Space Telescope was launched in April 1990 and deployed into low Earth orbit a day later, at roughly "
         "540 km. It was later serviced by astronauts five times between 1993 and 2009, which is why it is still working today.")
root = agent("trivia-crew", {"question": q}, {"answer": final}, [
    agent("researcher", {"task": q}, {"notes": notes}, [
        llm("chat", [sys("You are the research agent. Use encyclopedia_lookup and report the facts that answer the task."), user(q)],
            asst(calls=[("call_enc_1", "encyclopedia_lookup", {"title": "Hubble Space Telescope", "section": "Launch"})]), model="gpt-4o-mini", agent_name="researcher"),
        tool("encyclopedia_lookup", {"title": "Hubble Space Telescope", "section": "Launch"}, facts, call_id="call_enc_1"),
        llm("chat", [sys("You are the research agent. Use encyclopedia_lookup and report the facts that answer the task."), user(q),
                     asst(calls=[("call_enc_1", "encyclopedia_lookup", {"title": "Hubble Space Telescope", "section": "Launch"})]), toolmsg("call_enc_1", facts)],
            asst(notes), model="gpt-4o-mini", agent_name="researcher"),
    ], agent_name="researcher"),
    agent("writer", {"task": q, "notes": notes}, {"answer": final}, [
        llm("chat", [sys("You are the writer agent. Turn the researcher's notes into a friendly two-sentence answer."),
                     user(f"Question: {q}\n\nResearcher notes: {notes}")],
            asst(final), model="gpt-4o", agent_name="writer"),
    ], agent_name="writer"),
], agent_name="trivia-crew", workflow="trivia-crew")
S.append(dict(file="expected-missing-hubble-shuttle.genai.json", fmt="genai", root=root, base="2025-12-12T08:30:00.000Z",
              service="quizmaster", app_scope="quizmaster.crew",
              label={"class": "expected-missing", "culprit": "chat gpt-4o", "alternates": ["invoke_agent writer"],
                     "expected": "24 April 1990, aboard Space Shuttle Discovery (STS-31)",
                     "note": "The researcher's notes name Discovery but the writer's call dropped the shuttle, so the answer misses half the question."}))

# ---------------------------------------------------------------------------- G7 hidden-error
q = "Do I need an umbrella in Kyoto tomorrow afternoon?"
sysp = "You are a concise trip companion. Use get_forecast for weather questions. Today is 2026-04-02 (JST)."
tools = [fn("get_forecast", "Hourly forecast for a city.", {"city": {"type": "string"}, "date": {"type": "string"}})]
args = {"city": "Kyoto", "date": "2026-04-03"}
err_text = ("Error: 503 Service Unavailable: upstream provider timeout after 10000ms (GET https://api.weatherlink.example/v2/hourly?q=Kyoto&date=2026-04-03)\n"
            "    at WeatherClient.request (/app/dist/clients/weather.js:88:19)\n    at async getForecast (/app/dist/tools/forecast.js:21:18)")
final = ("Tomorrow afternoon in Kyoto looks mostly dry — partly cloudy with temperatures around 17°C — so you can probably leave "
         "the umbrella at the hotel. Maybe pack a light jacket for the evening.")
root = agent("trip-companion", {"message": q}, {"reply": final}, [
    llm("chat", [sys(sysp), user(q)], asst(calls=[("call_wx_4", "get_forecast", args)]), model="gpt-4o", tool_defs=tools),
    tool("get_forecast", args, None, call_id="call_wx_4", dropped=True),
    llm("chat", [sys(sysp), user(q), asst(calls=[("call_wx_4", "get_forecast", args)]), toolmsg("call_wx_4", err_text)],
        asst(final), model="gpt-4o", tool_defs=tools, wait=10000),
], agent_name="trip-companion", workflow="trip-companion")
S.append(dict(file="hidden-error-kyoto-forecast-503.genai.json", fmt="genai", root=root, base="2026-04-02T11:20:33.801Z",
              service="tripmate", app_scope="tripmate.agent", lang="nodejs",
              label={"class": "hidden-error", "culprit": "chat gpt-4o", "culprit_occurrence": 0, "alternates": ["invoke_agent trip-companion"],
                     "note": "The get_forecast call issued by the first model call failed with 503 (its span was not exported); the error text only appears as the tool message, and the answer invents a dry forecast."}))

# ---------------------------------------------------------------------------- G8 plan-ignored
q = ("I'm spending Monday 9 March in Porto. Find me a hotel under €120 near Ribeira, and check whether the Serralves museum is open that Monday.")
plan = ("Plan:\n1. search_hotels(city=Porto, area=Ribeira, max_price=120, check_in=2026-03-09, nights=1)\n"
        "2. get_opening_hours(place=\"Serralves Museum\", date=2026-03-09)\n3. Write a short answer covering the hotel and whether Serralves is open.")
hargs = {"city": "Porto", "area": "Ribeira", "max_price_eur": 120, "check_in": "2026-03-09", "nights": 1}
hres = {"hotels": [{"name": "Casa da Ribeira Guesthouse", "price_eur": 104, "rating": 8.9, "distance_m": 150},
                   {"name": "Porto Riverside Rooms", "price_eur": 117, "rating": 8.4, "distance_m": 320},
                   {"name": "Hotel do Infante", "price_eur": 96, "rating": 7.9, "distance_m": 600}]}
final = ("For Monday 9 March I'd suggest Casa da Ribeira Guesthouse — €104 for the night, rated 8.9 and just 150 m from the river. "
         "Hotel do Infante is a cheaper option at €96. Enjoy Porto, and have a great visit to Serralves!")
exsys = "You are the executor. Carry out the plan step by step using tools, then write the final answer."
root = agent("porto-trip", {"message": q}, {"reply": final}, [
    agent("planner", {"request": q}, {"plan": plan}, [
        llm("chat", [sys("You are the planner. Break the user's request into numbered tool steps. Do not call tools yourself."), user(q)],
            asst(plan), model="gpt-4o", agent_name="planner"),
    ], agent_name="planner"),
    agent("executor", {"plan": plan}, {"reply": final}, [
        llm("chat", [sys(exsys), user(f"User request: {q}\n\n{plan}")],
            asst(calls=[("call_h1", "search_hotels", hargs)]), model="gpt-4o-mini", agent_name="executor"),
        tool("search_hotels", hargs, hres, call_id="call_h1"),
        llm("chat", [sys(exsys), user(f"User request: {q}\n\n{plan}"), asst(calls=[("call_h1", "search_hotels", hargs)]), toolmsg("call_h1", js(hres))],
            asst(final), model="gpt-4o-mini", agent_name="executor"),
    ], agent_name="executor"),
], agent_name="porto-trip", workflow="porto-trip")
S.append(dict(file="plan-ignored-porto-serralves.genai.json", fmt="genai", root=root, base="2026-03-01T18:05:12.300Z",
              service="wayfarer-planner", app_scope="wayfarer.planner",
              label={"class": "plan-ignored", "culprit": "chat gpt-4o-mini", "culprit_occurrence": 1, "alternates": ["invoke_agent executor"],
                     "note": "The plan's step 2 (get_opening_hours for Serralves) was never executed: after the hotel search the executor's second call wrote the final answer and skipped it."}))

# ---------------------------------------------------------------------------- G9 wrong-tool
q = "What's the weather going to be like in Denver on Saturday? Thinking about a hike."
sysp = "You are a weather assistant. Today is Wednesday 2026-05-13. Tools: get_current_conditions (now), get_daily_forecast (next 10 days)."
tools = [fn("get_current_conditions", "Current observed conditions for a city.", {"city": {"type": "string"}}),
         fn("get_daily_forecast", "Daily forecast up to 10 days ahead.", {"city": {"type": "string"}, "date": {"type": "string"}})]
cur = {"city": "Denver, CO", "observed_at": "2026-05-13T15:00:00-06:00", "temp_f": 78, "conditions": "Sunny", "wind_mph": 6, "humidity": 18}
final = ("Saturday in Denver looks great for a hike: sunny, around 78°F with a light 6 mph breeze and low humidity. "
         "Bring sunscreen and plenty of water.")
root = agent("weather-bot", {"message": q}, {"reply": final}, [
    llm("chat", [sys(sysp), user(q)], asst(calls=[("call_cc_1", "get_current_conditions", {"city": "Denver"})]), model="gpt-4o-mini", tool_defs=tools),
    tool("get_current_conditions", {"city": "Denver"}, cur, call_id="call_cc_1"),
    llm("chat", [sys(sysp), user(q), asst(calls=[("call_cc_1", "get_current_conditions", {"city": "Denver"})]), toolmsg("call_cc_1", js(cur))],
        asst(final), model="gpt-4o-mini", tool_defs=tools),
], agent_name="weather-bot", workflow="weather-bot")
S.append(dict(file="wrong-tool-denver-current-vs-forecast.genai.json", fmt="genai", root=root, base="2026-05-13T21:02:40.000Z",
              service="skycast", app_scope="skycast", lang="nodejs",
              label={"class": "wrong-tool", "culprit": "chat gpt-4o-mini", "culprit_occurrence": 0, "alternates": [],
                     "note": "The question is about Saturday but the model called get_current_conditions instead of get_daily_forecast, so today's weather was reported as Saturday's."}))

# ---------------------------------------------------------------------------- G10 dropped-info
q = "Book me the 6:15 flight from Boston to Chicago O'Hare on 22 June and send me the itinerary."
bargs = {"flight": "UA 1187", "date": "2026-06-22", "passenger": "Dana Whitfield", "fare_class": "economy"}
bres = {"status": "CONFIRMED", "record_locator": "K7WQ2P", "flight": "UA 1187", "from": "BOS", "to": "ORD",
        "departure_local": "2026-06-22T06:15", "arrival_local": "2026-06-22T08:02", "terminal": "B", "seat": "23C",
        "bag_allowance": "1 personal item; carry-on not included (Basic Economy)"}
handoff = ("Booking done for Dana Whitfield: UA 1187 BOS→ORD on 22 June, confirmation K7WQ2P, seat 23C, Terminal B. "
           "Please write the itinerary email.")
final = ("Hi Dana, you're all set! Your flight UA 1187 from Boston (Terminal B) to Chicago O'Hare on Monday 22 June is confirmed. "
         "Confirmation code: K7WQ2P. Seat: 23C. Have a great trip!")
root = agent("concierge", {"message": q}, {"email": final}, [
    agent("booking-agent", {"request": q}, {"handoff": handoff}, [
        llm("chat", [sys("You are the booking agent. Book exactly what the traveller asked for."), user(q)],
            asst(calls=[("call_bk_1", "book_flight", bargs)]), model="gpt-4o", agent_name="booking-agent"),
        tool("book_flight", bargs, bres, call_id="call_bk_1", dur=1840),
        llm("chat", [sys("You are the booking agent. When the booking is done, hand off to the itinerary agent with everything it needs."),
                     user(q), asst(calls=[("call_bk_1", "book_flight", bargs)]), toolmsg("call_bk_1", js(bres))],
            asst(handoff), model="gpt-4o", agent_name="booking-agent"),
    ], agent_name="booking-agent"),
    agent("itinerary-agent", {"handoff": handoff}, {"email": final}, [
        llm("chat", [sys("You are the itinerary agent. Write the itinerary email from the handoff note, including times."), user(handoff)],
            asst(final), model="gpt-4o-mini", agent_name="itinerary-agent"),
    ], agent_name="itinerary-agent"),
], agent_name="concierge", workflow="concierge")
S.append(dict(file="dropped-info-itinerary-departure-time.genai.json", fmt="genai", root=root, base="2026-06-01T14:44:09.510Z",
              service="concierge-agents", app_scope="concierge.swarm",
              label={"class": "dropped-info", "culprit": "chat gpt-4o", "culprit_occurrence": 1, "alternates": ["invoke_agent booking-agent"],
                     "expected": "departs 06:15, arrives 08:02; Basic Economy, carry-on not included",
                     "note": "The booking agent's handoff note dropped the departure/arrival times and the bag restriction, so the itinerary email lacks them."}))

# ---------------------------------------------------------------------------- HG1 healthy: retry recovered
q = "Where is my order 88213-B? It was supposed to arrive yesterday."
sysp = "You are ShopCo support. Look orders up with get_order_status. If a tool fails transiently, retry once."
tools = [fn("get_order_status", "Order status and tracking.", {"order_id": {"type": "string"}})]
args = {"order_id": "88213-B"}
err = {"type": "UpstreamError", "message": "502 Bad Gateway from orders-service", "stack": "UpstreamError: 502 Bad Gateway from orders-service\n    at OrdersClient.get (/srv/app/clients/orders.py:61)"}
ok = {"order_id": "88213-B", "status": "in_transit", "carrier": "UPS", "tracking": "1Z999AA10123456784",
      "last_scan": "2026-02-11T06:12:00-05:00 Columbus, OH", "estimated_delivery": "2026-02-12"}
final = ("Sorry for the delay! Order 88213-B is in transit with UPS (tracking 1Z999AA10123456784). It was last scanned this morning "
         "in Columbus, OH, and the new estimated delivery date is tomorrow, 12 February.")
m0 = [sys(sysp), user(q)]
c1 = asst(calls=[("call_o1", "get_order_status", args)])
c2 = asst(calls=[("call_o2", "get_order_status", args)])
root = agent("support", {"message": q}, {"reply": final}, [
    llm("chat", m0, c1, model="gpt-4o-mini", tool_defs=tools),
    tool("get_order_status", args, None, call_id="call_o1", error=err, dur=3012),
    llm("chat", m0 + [c1, toolmsg("call_o1", "Error: 502 Bad Gateway from orders-service")], c2, model="gpt-4o-mini", tool_defs=tools),
    tool("get_order_status", args, ok, call_id="call_o2"),
    llm("chat", m0 + [c1, toolmsg("call_o1", "Error: 502 Bad Gateway from orders-service"), c2, toolmsg("call_o2", js(ok))], asst(final), model="gpt-4o-mini", tool_defs=tools),
], agent_name="shopco-support", workflow="support")
S.append(dict(file="healthy-order-status-retry.genai.json", fmt="genai", root=root, base="2026-02-11T15:31:27.640Z",
              service="shopco-support", app_scope="shopco.support",
              label={"class": "healthy", "culprit": "", "alternates": [],
                     "note": "The first lookup failed with 502, the agent retried and answered correctly from the second result."}))

# ---------------------------------------------------------------------------- HG2 healthy: no flights that date
q = "Is there a direct flight from Porto to Oslo on 3 February?"
sysp = "You are Wayfarer, a travel booking assistant. Use IATA codes. Today is 2026-01-15."
tools = [fn("search_flights", "Search scheduled flights between two airports on a date.",
            {"origin": {"type": "string"}, "destination": {"type": "string"}, "date": {"type": "string"}, "max_stops": {"type": "integer"}})]
args = {"origin": "OPO", "destination": "OSL", "date": "2026-02-03", "max_stops": 0}
res = {"query": args, "results": [], "count": 0, "note": "No nonstop service scheduled on this date. Nonstop OPO-OSL operates Thu and Sun in winter."}
final = ("There's no direct flight from Porto to Oslo on Tuesday 3 February — the nonstop route only runs on Thursdays and Sundays "
         "in winter. The nearest options would be Sunday 1 or Thursday 5 February; want me to check those?")
root = agent("travel-assistant", {"message": q}, {"reply": final}, [
    llm("chat", [sys(sysp), user(q)], asst(calls=[("call_f_31", "search_flights", args)]), model="gpt-4o", tool_defs=tools),
    tool("search_flights", args, res, call_id="call_f_31"),
    llm("chat", [sys(sysp), user(q), asst(calls=[("call_f_31", "search_flights", args)]), toolmsg("call_f_31", js(res))], asst(final), model="gpt-4o", tool_defs=tools),
], agent_name="Wayfarer", workflow="travel-assistant")
S.append(dict(file="healthy-no-direct-flight-opo-osl.genai.json", fmt="genai", root=root, base="2026-01-15T10:02:19.330Z",
              service="wayfarer-api", app_scope="wayfarer.agent",
              label={"class": "healthy", "culprit": "", "alternates": [],
                     "note": "The search used correct codes and returned no nonstop flights; the polite negative answer is grounded in it."}))

# ---------------------------------------------------------------------------- HG3 healthy: code tool exit 0
q = "If I put $15,000 in a CD at 4.35% APY for 18 months, how much will I have at the end?"
code = ("principal = 15000\napy = 0.0435\nyears = 18 / 12\nbalance = principal * (1 + apy) ** years\n"
        "print(round(balance, 2))\nprint(round(balance - principal, 2))\n")
out = {"stdout": "15989.32\n989.32\n", "stderr": "", "exit_code": 0, "duration_ms": 23}
final = ("After 18 months at 4.35% APY, your $15,000 would grow to about $15,989.32 — roughly $989.32 in interest "
         "(before taxes, assuming no early withdrawal).")
sysp = "You are a savings calculator assistant. Use run_python for arithmetic."
tools = [fn("run_python", "Execute Python code and return stdout/stderr/exit code.", {"code": {"type": "string"}})]
root = agent("savings-calc", {"message": q}, {"reply": final}, [
    llm("chat", [sys(sysp), user(q)], asst(calls=[("call_c1", "run_python", {"code": code})]), model="gpt-4o-mini", tool_defs=tools),
    tool("run_python", {"code": code}, out, call_id="call_c1"),
    llm("chat", [sys(sysp), user(q), asst(calls=[("call_c1", "run_python", {"code": code})]), toolmsg("call_c1", js(out))], asst(final), model="gpt-4o-mini", tool_defs=tools),
], agent_name="savings-calc", workflow="savings-calc")
S.append(dict(file="healthy-cd-interest-code-ok.genai.json", fmt="genai", root=root, base="2025-10-21T19:48:55.002Z",
              service="northbank-chat", app_scope="northbank.assistant", lang="nodejs",
              label={"class": "healthy", "culprit": "", "alternates": [],
                     "note": "The code ran with exit code 0 and the answer restates its output."}))
