// Package copy is copy mode (docs/modes.md): where namespaces are
// forbidden (a Docker or Kubernetes seccomp profile, macOS), each
// hypothesis runs in its own copy of the workspace, made in a shadow-owned
// directory on the workspace's own filesystem so the copy can share blocks
// (FICLONE on btrfs/XFS/bcachefs, clonefile on APFS) and is a plain copy
// otherwise. Never hard links: a write through one would change the
// checkout.
//
// The command runs under the process helper of internal/sandbox/reaper, this
// binary re-executed, that is a child subreaper: every process the command
// starts stays its descendant, setsid and double forks included, and the
// helper ends them all on exit, timeout, cancel or the death of shadow
// (PR_SET_PDEATHSIG). Beside each copy an owner file names
// the shadow and helper processes (pid and start time), so gc can tell a
// crashed run's copy from a live one.
//
// Copy mode runs the command as the user with no namespace: it keeps the
// checkout safe from accidents (every write lands in the copy), not from a
// hostile command, which can still reach the checkout by its path.
package copy
