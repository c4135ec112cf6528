// Package reexec starts this binary again as one of shadow's hidden helper
// processes (the overlay init, the process reaper) and waits for it. The
// helpers differ in what they are told and how they are isolated; the
// start and wait mechanics are the same and live here:
//
//   - the helper's report comes back on a status socket (one end of a
//     unix socket pair, not a pipe: see statusChannel), whose write end
//     is the helper's fd StatusFD (3 unless the caller says otherwise);
//     the helper marks it close-on-exec so the command never holds it;
//   - the forking goroutine keeps its OS thread until Wait returns:
//     PR_SET_PDEATHSIG fires when the *thread* that forked the child
//     exits, not the process (prctl(2)), and Go may end an unlocked thread
//     at any time;
//   - a cancelled context ends the helper the caller's way (Stop);
//   - WaitDelay bounds the wait for the output pipe, should a process the
//     helper failed to end still hold it.
package reexec
