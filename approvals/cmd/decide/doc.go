// Command decide signs an operator's decision on a call waiting for approval
// and prints the `temporal workflow update execute` command that sends it:
// the operator's path to signed approvers from a terminal. It reads what waits
// from the Query's answer on stdin and never connects to a server, so the
// operator sends the decision with their own CLI credentials.
//
//	go run ./approvals/cmd/decide -genkey -key ana.pem   # once: a new key; prints its public key
//	temporal workflow query --workflow-id trip-1 --name temporaladk.approvals --output json |
//		go run ./approvals/cmd/decide -key ana.pem -key-id ana-key -by ana -call approval-1 -approve
//
// prints, on stderr, what the person signs (workflow, run, call, activity
// type, arguments, approvers), and on stdout the command to run:
//
//	temporal workflow update execute --workflow-id trip-1 --run-id <run> --name temporaladk.approve \
//		--input '{"call":"approval-1","digest":"…","by":"ana","approve":true,"expires":"…","key":"ana-key","signature":"…"}'
//
// -deny -reason "…" denies instead; -input-only prints the --input JSON alone;
// -valid sets how long the decision stays valid (10m if not set); -pending
// reads the Query's answer from a file instead of stdin. The decision is
// approvals.Signer's: it signs the statement the run's validator rebuilds
// (workflow, run, chain, call, activity type, arguments' digest, approve or
// deny, principal, expiry), after checking that the listed arguments have the
// listed digest, that -by may decide the call, and that its approvers are not
// open (an open-mode call takes the unsigned commands of README).
//
// The key file is an ed25519 private key in PEM PKCS#8 ("PRIVATE KEY"), the
// form of -genkey (written with mode 0600, never over an existing file) and of
// `openssl genpkey -algorithm ed25519 -out ana.pem`; encrypted and OpenSSH keys
// are not read. -pubkey prints the public key of -key (as `openssl pkey -in
// ana.pem -pubout` does), in PEM PKIX ("PUBLIC KEY"), which the worker turns
// into the approvals.PublicKey of -key-id and -by:
//
//	block, _ := pem.Decode(pubPEM)
//	pub, err := x509.ParsePKIXPublicKey(block.Bytes) // an ed25519.PublicKey
//	verifier, err := approvals.NewEd25519Verifier(approvals.PublicKey{ID: "ana-key", Principal: "ana", Key: pub.(ed25519.PublicKey)})
//
// The private key is never printed or logged. Bad flags exit 2 naming the
// flag; a decision it cannot sign (a bad key file, a call not listed, a
// digest that does not match its arguments) exits 1.
package main
