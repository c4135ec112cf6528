// Package landlock seals the commands of copy and in-place modes with
// Landlock (Linux ≥ 5.13; landlock(7)), which needs no namespace and no
// privilege: where user namespaces are forbidden (a Docker or Kubernetes
// container's default seccomp profile, bubblewrap --disable-userns, an
// AppArmor restriction) it is what keeps a hostile command inside its
// copy.
//
// A Policy says what the command may write (beneath a few directories)
// and, with --net isolated, which TCP ports it may bind and connect to.
// Everything else is readable and executable but not writable; abstract
// unix sockets and signals outside the command's own domain are refused
// (ABI ≥ 6), and so is ptrace of any process outside it (every ABI). Each
// right is taken at the best ABI the kernel offers (go-landlock's
// BestEffort), and Enforced says which ABI that was.
//
// The restriction is applied by a small stage (this binary re-executed,
// see MaybeStage) between the process helper's fork and the command's
// exec, as go-landlock's NewRulesetFD example does: the helper itself
// stays outside the domain, so the command can neither signal nor ptrace
// it (a restricted thread left in the helper could be tgkill'ed, and the
// helper's death would orphan the command's daemons).
package landlock
