// The inbox's part of a relayed decision (Options.Relay): the form asks for
// the challenge over the decision's statement, the relay's temporaladkSign
// has the person's own key answer it, and the form sends the answer.
"use strict";
for (const form of document.querySelectorAll("form[data-relay]")) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = new FormData(form, event.submitter);
    const status = form.querySelector(".relay-status");
    status.textContent = "asking your key…";
    try {
      const resp = await fetch("challenge", { method: "POST", body: new URLSearchParams(fields) });
      if (!resp.ok) throw new Error(await resp.text());
      const c = await resp.json();
      const answer = await window.temporaladkSign(c.challenge);
      for (const [name, value] of [["decision", fields.get("decision")], ["expires", c.expires], ["answer", answer]]) {
        const input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        input.value = value;
        form.appendChild(input);
      }
      form.action = "answer";
      form.submit();
    } catch (err) {
      status.textContent = "not decided: " + err.message;
      status.className = "relay-status err";
    }
  });
}
