// Package inboxbrowser holds the browser tests of the kit's web pages:
// headless Chromium, from Debian's packages, driven from Go with chromedp.
// It is a module of its own so that the core module does not depend on
// chromedp.
//
// The approval inbox (package approvals/inbox): Chromium loads the inbox
// from a dev server with three workflows waiting, reads their arguments on
// the page and approves one with a click. Its screenshot is
// docs/approvals-inbox.png at the repository's root when
// TEMPORALADK_INBOX_SCREENSHOT names that file.
//
// Passkeys (package contrib/passkey): Chromium with a virtual authenticator
// (the DevTools WebAuthn domain) registers ana's passkey on the registrar's
// page; the worker and the inbox are built from her public credential only;
// she approves from the inbox and her authenticator signs the decision's
// challenge; the tool runs once and the history holds her assertion. A
// challenge for other arguments, a replayed assertion, an assertion without
// the user verification her passkey requires, and one by an authenticator
// the worker does not know are each refused by the run's validator, leaving
// nothing in history. Its screenshot is docs/passkey-approval.png when
// TEMPORALADK_PASSKEY_SCREENSHOT names that file.
//
// The live page (live.NewPage): Chromium loads the page beside the
// stream's handler (live.NewHandler) while an agent runs on the dev server
// under the kit with live.NewObserver; a stand-in MODEL activity streams
// and waits, mid-stream, until the test has read the page: the reply shows
// token by token, marked partial, before its call ends; an attempt killed
// mid-stream leaves no text on the screen; each message ends equal, byte
// for byte, to the result in the run's history; a refused stream shows
// the notice that history remains the truth. Its screenshot is
// docs/live-page.png when TEMPORALADK_LIVE_SCREENSHOT names that file.
package inboxbrowser
