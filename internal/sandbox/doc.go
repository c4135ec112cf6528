// Package sandbox is the one package that knows the sandbox modes: which
// one a run gets (Open: the one `--mode auto` decision and the one refusal
// of what a mode cannot honour, used by local runs and by a remote node
// alike), what the probe says about it (Explain: `shadow probe` and the
// MCP tool shadow_probe print the same text), what each mode leaves behind
// (Sweep, for `shadow gc`), and the hidden entry points this binary is
// re-executed as (the dispatch table).
//
// The drivers stay below it and know nothing of each other: overlay/ and
// inplace/ (top level), copy, remote, warm, freeze and reaper under it.
// Nothing here imports the run service, the command tree or the MCP
// server (`go list -deps ./internal/sandbox/...`).
package sandbox
