// Package inboxbrowser holds the browser test of the approval inbox
// (package approvals/inbox): headless Chromium, from Debian's packages,
// driven from Go with chromedp, loads the inbox from a dev server with
// three workflows waiting, reads their arguments on the page and approves
// one with a click. It is a module of its own so that the core module does
// not depend on chromedp. The test's screenshot is docs/approvals-inbox.png
// at the repository's root when TEMPORALADK_INBOX_SCREENSHOT names that
// file.
package inboxbrowser
