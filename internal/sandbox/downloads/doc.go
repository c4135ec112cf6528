// Package downloads lets what a hypothesis downloaded into a package
// manager's cache outlive it, where the checkout's own lockfile vouches
// for it: a Go module's zip and go.mod whose hashes the checkout's go.sum
// names, an npm tarball whose sha512 a package-lock.json integrity names
// (docs/modes.md, "Checked downloads"). Any hypothesis may have written
// them, a candidate too: a download is the same bytes whoever fetched it,
// and the lockfile, read from the checkout before any job ran, is what the
// user's own go build or npm ci would check them against.
//
// Nothing a job wrote is taken as it is. Each file is copied out of the
// job's cache first, the copy hashed, and only a copy whose hash the
// lockfile names is kept; what Go derives from a zip (its .ziphash, the
// extracted module directory) is made here from the checked zip, never
// taken from the job. Everything else (.info and list files, the sum
// database's tiles, npm's index entries with their HTTP headers, any
// other cache) is left where it was, to go with the job.
package downloads
