// Package reaper runs a command under a small helper, this binary
// re-executed (MaybeHelper, dispatched first in main), that ends every
// process the command starts. Copy mode and in-place mode run each
// hypothesis's command this way: they have no PID namespace whose end
// would take the command's processes with it.
//
// The helper is a child subreaper (prctl(2) PR_SET_CHILD_SUBREAPER): an
// orphan of the command is re-parented to it instead of init, so however
// a process forks, double-forks or calls setsid, it stays the helper's
// descendant. When the command exits, on timeout or cancel (SIGTERM from
// shadow) and on shadow's death (PR_SET_PDEATHSIG), the helper walks its
// descendants in /proc, SIGTERMs them, waits a grace period and SIGKILLs
// until none remains (a fork loop included: a process with SIGKILL pending
// cannot fork). Only then does it report and exit, so a caller that waits
// for it knows nothing of the command can still write.
//
// macOS has no subreaper and no PR_SET_PDEATHSIG: there the helper polls
// for shadow's death and ends what is still below it, but a process that
// double-forked away is re-parented to launchd and escapes.
package reaper
