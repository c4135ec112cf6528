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
// The restriction is applied by ForkExecSealed: a thread of the process
// helper restricts itself, forks the command and ends, so the command
// starts in the domain and no thread of the helper stays in it (the
// command can neither signal nor ptrace the helper). No second exec: a
// re-executed stage (go-landlock's NewRulesetFD example) cost one more
// start of the shadow binary per hypothesis, 150-250 ms on this loaded
// 2-core machine (bench/landlock.sh), against the 2 ms budget.
//
// Pathname unix sockets (tmux, docker.sock, D-Bus, ssh-agent) are
// Landlock's from ABI 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX); below it the
// socket guard closes them: a seccomp filter sends the command's
// connect, sendmsg, sendmmsg and addressed sendto to the helper, which
// performs each on the command's socket after checking its own copy of
// the address (sockfilter_linux.go, sockguard_linux.go).
package landlock
