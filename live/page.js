"use strict";
// The live page: reads the AI SDK's UI message stream from the handler of
// package live with EventSource and shows it. Every text goes through
// textContent or a text node, never HTML, so what shows is what streamed,
// byte for byte.
(() => {
  const body = document.body;
  const conversation = document.getElementById("conversation");
  const budgets = document.getElementById("budgets");
  const notice = document.getElementById("notice");
  const status = document.getElementById("status");
  const inbox = body.dataset.inbox || "";
  const truth = "The workflow's history remains the truth: what it recorded is the agent's reply, whatever this page shows.";

  const texts = new Map(); // part id -> {el, body}: text and reasoning parts
  const tools = new Map(); // toolCallId -> element
  const approvals = new Map(); // part id -> element
  const meters = new Map(); // run/call -> element
  let message = null; // the message streaming now
  let peak = 0; // the most a budget had left, as the page saw it

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function setStatus(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  function showNotice(text) {
    notice.textContent = text + " " + truth;
    notice.hidden = false;
  }

  function current() {
    if (!message) startMessage("");
    return message;
  }

  function startMessage(id) {
    message = el("article", "message streaming");
    message.dataset.message = id;
    const head = el("header");
    head.append(el("span", "role", "assistant"), el("span", "label", "streaming"));
    message.append(head);
    conversation.append(message);
  }

  // A part id run/c3/a2 (or run/c3/a2/final, run/c3/a2/reasoning) names
  // its call, run/c3, and its attempt, 2.
  function attemptOf(id) {
    const m = /^(.*)\/a(\d+)(?:\/[^/]*)?$/.exec(id);
    return m ? { call: m[1], attempt: Number(m[2]) } : null;
  }

  function textPart(id, kind) {
    let t = texts.get(id);
    if (t) return t;
    const e = el("div", "part " + kind + " partial");
    e.dataset.part = id;
    const a = attemptOf(id);
    if (a) {
      e.dataset.call = a.call;
      e.dataset.attempt = String(a.attempt);
    }
    const b = el("div", "body");
    e.append(el("span", "label", kind === "text" ? "writing…" : "thinking…"), b);
    current().append(e);
    t = { el: e, body: b };
    texts.set(id, t);
    return t;
  }

  function endText(id, supersededPart) {
    const t = texts.get(id);
    if (!t) return;
    const label = t.el.querySelector(":scope > .label");
    t.el.classList.remove("partial");
    if (supersededPart) {
      t.el.classList.add("superseded");
      label.textContent = "dropped";
      return;
    }
    t.el.classList.add("done");
    label.remove();
  }

  function drop(e, id) {
    e.remove();
    texts.delete(id);
  }

  // dropDead removes the parts of call before attempt, and the superseded
  // parts of call ("" for any call).
  function dropDead(call, attempt) {
    for (const [id, t] of texts) {
      const d = t.el.dataset;
      if (call !== "" && d.call !== call) continue;
      if (t.el.classList.contains("superseded") || (attempt && Number(d.attempt) < attempt)) drop(t.el, id);
    }
  }

  function tool(id, name) {
    let e = tools.get(id);
    if (e) return e;
    e = el("div", "part tool");
    e.dataset.toolCall = id;
    e.append(el("span", "label", "running…"), el("strong", "name", name || "tool"));
    current().append(e);
    tools.set(id, e);
    return e;
  }

  function toolResult(id, state, label, cls, text) {
    const e = tool(id, "");
    e.dataset.state = state;
    e.querySelector(":scope > .label").textContent = label;
    const pre = el("pre", cls, text);
    const old = e.querySelector(":scope > pre");
    if (old) old.replaceWith(pre);
    else e.append(pre);
  }

  function approval(id, d) {
    let e = approvals.get(id);
    if (!e) {
      e = el("div", "part approval");
      e.dataset.approval = id;
      current().append(e);
      approvals.set(id, e);
    }
    e.dataset.status = d.status || "";
    e.replaceChildren();
    const waiting = d.status === "waiting";
    e.append(el("span", "label", waiting ? "approval waiting" : "approval " + d.status));
    const line = el("div", "summary");
    line.append(el("strong", "", d.approval || id), document.createTextNode(d.summary ? " " + d.summary : ""));
    e.append(line);
    const who = d.principals && d.principals.length ? d.principals.join(", ") : "anyone";
    if (waiting) {
      const p = el("div", "detail", "needs " + (d.required || 1) + " of " + who + (d.deadline ? ", until " + d.deadline : "") + ". ");
      if (inbox) {
        const a = el("a", "decide", "Decide in the approvals inbox");
        a.href = inbox;
        p.append(a);
      } else {
        p.append(document.createTextNode("A person decides in the approvals inbox."));
      }
      e.append(p);
      return;
    }
    let said = d.by ? " by " + d.by : "";
    if (d.reason) said += ": " + d.reason;
    if (d.approvals && d.approvals.length && d.approvals.join() !== d.by) said += " (approved by " + d.approvals.join(", ") + ")";
    e.append(el("div", "detail", d.status + said));
  }

  function budget(id, d) {
    const key = id.replace(/\/charged\/\d+$/, "");
    let e = meters.get(key);
    if (!e) {
      e = el("div", "budget");
      e.dataset.call = key;
      budgets.append(e);
      meters.set(key, e);
    }
    budgets.hidden = false;
    e.replaceChildren();
    const name = el("span", "name", d.call);
    if (typeof d.remaining !== "number") {
      e.append(name, el("span", "detail", "attempt " + d.attempt + " charged (metered by tokens or cost)"));
      return;
    }
    peak = Math.max(peak, d.remaining + 1);
    const m = el("meter");
    m.min = 0;
    m.value = d.remaining;
    e.dataset.remaining = String(d.remaining);
    e.append(name, m, el("span", "detail", d.remaining + " left after attempt " + d.attempt));
    for (const other of budgets.querySelectorAll("meter")) other.max = peak;
  }

  function note(text, cls) {
    current().append(el("div", "part note " + cls, text));
  }

  function finish() {
    if (!message) return;
    dropDead("", 0);
    for (const t of texts.values()) if (t.el.classList.contains("partial") && message.contains(t.el)) endText(t.el.dataset.part, false);
    message.classList.replace("streaming", "done");
    const label = message.querySelector(":scope > header > .label");
    if (label) label.remove();
    message = null;
  }

  function apply(p) {
    switch (p.type) {
      case "start":
        startMessage(p.messageId || "");
        break;
      case "text-start":
        textPart(p.id, "text");
        break;
      case "text-delta":
        textPart(p.id, "text").body.append(document.createTextNode(p.delta));
        break;
      case "text-end":
        endText(p.id, Boolean(p.providerMetadata && p.providerMetadata.temporaladk && p.providerMetadata.temporaladk.superseded));
        break;
      case "reasoning-start":
        textPart(p.id, "reasoning");
        break;
      case "reasoning-delta":
        textPart(p.id, "reasoning").body.append(document.createTextNode(p.delta));
        break;
      case "reasoning-end":
        endText(p.id, false);
        break;
      case "tool-input-available":
        tool(p.toolCallId, p.toolName).dataset.state = "input-available";
        break;
      case "tool-output-available":
        toolResult(p.toolCallId, "output-available", "done", "output", JSON.stringify(p.output));
        break;
      case "tool-output-error":
        toolResult(p.toolCallId, "output-error", "failed", "error", p.errorText);
        break;
      case "data-temporaladk-reset":
        dropDead(p.data.call, p.data.attempt);
        note("Attempt " + p.data.attempt + " starts: the text of the attempt before it is dropped.", "retry");
        break;
      case "data-temporaladk-final":
        dropDead(p.data.call, 0);
        note("The call ended " + p.data.outcome + (p.data.errorType ? " (" + p.data.errorType + ")" : "") + ", with no reply text.", "final");
        break;
      case "data-temporaladk-approval":
        approval(p.id, p.data);
        break;
      case "data-temporaladk-budget":
        budget(p.id, p.data);
        break;
      case "data-temporaladk-resync": {
        // The message starts over from what the stream still holds.
        const keep = message;
        for (const m of Array.from(conversation.children)) if (m !== keep) m.remove();
        for (const b of Array.from(budgets.querySelectorAll(".budget"))) b.remove();
        texts.clear();
        tools.clear();
        approvals.clear();
        meters.clear();
        peak = 0;
        break;
      }
      case "finish":
        finish();
        break;
    }
  }

  // The handler ends its response at each message's finish. The page
  // opens the next at once, resuming after the finish in the query (a new
  // EventSource sends no Last-Event-ID); the browser's own reconnects,
  // after an error, send the header.
  let source = null;
  function connect(after) {
    const url = new URL(body.dataset.events, document.baseURI);
    if (after) url.searchParams.set("lastEventId", after);
    const es = new EventSource(url.href);
    source = es;
    es.onopen = () => {
      if (es !== source) return;
      notice.hidden = true;
      setStatus("live", "live");
    };
    es.onmessage = (ev) => {
      if (es !== source) return;
      if (ev.data === "[DONE]") {
        es.close();
        connect(ev.lastEventId);
        return;
      }
      let p;
      try {
        p = JSON.parse(ev.data);
      } catch (err) {
        return;
      }
      apply(p);
    };
    es.onerror = () => {
      if (es !== source) return;
      if (es.readyState === EventSource.CLOSED) {
        setStatus("unavailable", "unavailable");
        showNotice("The live view is unavailable: the stream was refused or closed.");
        return;
      }
      setStatus("reconnecting", "reconnecting…");
      showNotice("The live view is interrupted; reconnecting.");
    };
  }
  connect("");
})();
