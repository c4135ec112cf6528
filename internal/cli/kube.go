package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/judge"
	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/kube"
	"github.com/shadow-dev/shadow/internal/run"
)

// kubeCommand is `shadow kube job` (a spec's shards as a Kubernetes
// Indexed Job, printed or created) and `shadow kube collect` (its pods'
// reports merged as `shadow merge` merges). docs/kube.md.
func kubeCommand(s Streams) *cobra.Command {
	parent := &cobra.Command{
		Use:   "kube job|collect ...",
		Short: "run a spec's shards as a Kubernetes Indexed Job, and merge what its pods report",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return usage("kube: say what you want: shadow kube job [flags] SPEC -- COMMAND..., or shadow kube collect JOB")
		},
	}
	parent.AddCommand(kubeJobCommand(s), kubeCollectCommand(s))
	return parent
}

// kubeConn are the flags both subcommands take to reach the cluster.
type kubeConn struct{ kubeconfig, context, namespace string }

func (k *kubeConn) register(fs *pflag.FlagSet) {
	fs.StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the pod's service account in a cluster)")
	fs.StringVar(&k.context, "context", "", "the kubeconfig context to use (default: its current context)")
	fs.StringVarP(&k.namespace, "namespace", "n", "", "namespace (default: the context's, else default)")
}

// kubeJobOwn are kube job's own flags, and the run flags that make no
// sense in a pod: they are not passed on to the shards.
var kubeJobOwn = map[string]bool{
	"apply": true, "with-tests": true, "dir": true, "remote": true, "remote-dir": true,
	"image": true, "name": true, "namespace": true, "kubeconfig": true, "context": true,
	"mirror": true, "mirror-pvc": true, "mirror-git": true, "node-selector": true, "toleration": true,
	"service-account": true, "image-pull-secret": true, "pod-memory": true, "shadow-path": true, "backoff-limit-per-index": true,
	"ttl": true, "privileged": true, "no-record": true,
	"headless": true, "json": true, "events": true, "shard": true, "shard-index-env": true,
}

func kubeJobCommand(s Streams) *cobra.Command {
	var f runFlags
	var conn kubeConn
	var o kube.Options
	var apply bool
	var selector, tolerations []string
	var hostPath, pvc, gitURL string
	c := &cobra.Command{
		Use:   "job [--shards N] --image IMAGE [--apply] [flags] [run flags] SPEC -- COMMAND...",
		Short: "print (or --apply) a Kubernetes Indexed Job running SPEC's shards",
		Long: `job prints (on stdout, as YAML for kubectl create -f -) or, with --apply, creates
through the API an Indexed Job of N pods, one shard each: shadow --headless
--events --shard /N, the index from JOB_COMPLETION_INDEX, with the run flags given
here. Each pod runs IMAGE (shadow, git and the project's toolchain) with a
mirror of this checkout at this checkout's path: by default an init container
fetches this commit from the origin remote (--mirror-git URL another), or a
PersistentVolumeClaim holds it (--mirror-pvc), or a hostPath on the nodes
(--mirror PATH, which Pod Security's baseline level refuses). The pods pass
baseline: the runtime's seccomp profile, no capabilities, CPU and memory
requested as limited (--cpus, --pod-memory: Guaranteed QoS); shadow picks copy
mode sealed with Landlock there (--privileged for overlay mode). The overlay
uppers and shadow's state go to an emptyDir; the spec is in a ConfigMap the Job
owns (with --apply). A shard that ran (exit 0 or
1) completes its index; exit 2 (a refused spec) fails the Job; 3 (this node
cannot) is retried up to --backoff-limit-per-index; 130 (interrupted) is
retried without counting. Then: shadow kube collect NAME. docs/kube.md.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pos, command := args, []string(nil)
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				pos, command = args[:dash], args[dash:]
			}
			if len(pos) != 1 {
				return usage("kube job: give one SPEC (a file, or - for stdin), then -- COMMAND...")
			}
			var data []byte
			var err error
			specDir, specName := "", pos[0]
			cwd, err := os.Getwd()
			if err != nil {
				return envErr("kube job: %v", err)
			}
			if pos[0] == "-" {
				data, err = io.ReadAll(s.In)
				specDir, specName = cwd, "stdin"
			} else {
				data, err = os.ReadFile(pos[0])
				if abs, aerr := filepath.Abs(pos[0]); aerr == nil {
					specDir = filepath.Dir(abs)
				}
			}
			if err != nil {
				return specErr("kube job: cannot read the spec: %v", err)
			}
			spec, err := engine.DecodeSpec(data)
			if err != nil {
				return specErr("kube job: %s: %v", specName, err)
			}
			if len(command) == 0 && len(spec.Command) == 0 {
				return usage("kube job: no command: give it after -- (or in the spec's \"command\")")
			}
			ws, _, err := run.ResolveWorkspace(f.opts.Dir, cwd)
			if err != nil {
				return specErr("kube job: %v", err)
			}
			// The pods run where this command would: this directory when
			// it is in the checkout (a command's subdirectory), else the
			// checkout's root. The spec reaches them on stdin, so its
			// relative "file" sources resolve against that directory.
			workDir := ws
			if real, err := filepath.EvalSymlinks(cwd); err == nil && within(ws, real) {
				workDir = real
			}
			if rs, err := filepath.EvalSymlinks(specDir); err == nil {
				specDir = rs
			}
			if rel := relativeFileSource(spec); rel != "" && specDir != workDir {
				return specErr("kube job: the spec reads %q relative to its directory %s, but the pods read the spec in %s: run shadow kube job from the spec's directory, or make that path absolute (in the checkout, so the mirror has it)", rel, specDir, workDir)
			}
			o.Mirror = kube.Mirror{HostPath: hostPath, Git: gitURL}
			if name, sub, ok := strings.Cut(pvc, ":"); ok {
				o.Mirror.PVC, o.Mirror.SubPath = name, sub
			} else {
				o.Mirror.PVC = pvc
			}
			fromOrigin := hostPath == "" && pvc == "" && gitURL == ""
			if fromOrigin {
				if url, err := fsutil.Command("git", "-C", ws, "remote", "get-url", "origin").Output(); err == nil {
					o.Mirror.Git = strings.TrimSpace(string(url))
				}
			}
			if o.Mirror.Git != "" {
				o.Mirror.Commit = judge.CheckoutCommit(ws)
			}
			if o.NodeSelector, err = kube.ParseSelector(selector); err != nil {
				return usage("kube job: %v", err)
			}
			if o.Tolerations, err = kube.ParseTolerations(tolerations); err != nil {
				return usage("kube job: %v", err)
			}
			runArgs := []string{}
			for _, a := range forwardedRunFlags(cmd.Flags()) {
				name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
				if !kubeJobOwn[name] {
					runArgs = append(runArgs, a)
				}
			}
			if o.CPUs > 0 && !cmd.Flags().Changed("jobs") {
				runArgs = append(runArgs, fmt.Sprintf("--jobs=%d", o.CPUs))
			}
			o.Workspace, o.WorkDir, o.Spec, o.SpecName = ws, workDir, data, specName
			o.RunArgs, o.Command = runArgs, command
			o.Namespace = conn.namespace
			if o.Name == "" {
				o.Name = kube.DefaultName(data, command, o.Shards, judge.CheckoutCommit(ws))
			}
			if err := o.Check(); err != nil {
				return usage("kube job: %v", err)
			}
			// The nodes' mirrors hold commits: what is not committed here
			// is not what the pods run (each shard's report names the
			// commit it ran on, and the merge refuses a mix of them).
			if dirty, _ := fsutil.Command("git", "-C", ws, "status", "--porcelain", "--untracked-files=no").Output(); len(strings.TrimSpace(string(dirty))) > 0 {
				fmt.Fprintf(s.Err, "shadow: notice: %s has uncommitted changes; the pods run the nodes' mirror of its commit, without them\n", ws)
			}
			if fromOrigin {
				fmt.Fprintf(s.Err, "shadow: notice: the pods fetch %s from %s (origin): --mirror-git URL, --mirror-pvc CLAIM or --mirror PATH give them another mirror\n", o.Mirror.Commit, o.Mirror.Git)
			}
			if !apply {
				return kube.WriteYAML(s.Out, o)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			cl, err := kube.Connect(conn.kubeconfig, conn.context, conn.namespace)
			if err != nil {
				return err
			}
			if err := cl.Apply(ctx, o); err != nil {
				return err
			}
			fmt.Fprintln(s.Out, o.Name)
			fmt.Fprintf(s.Err, "shadow: job %s/%s created (%d shards); merge its pods' reports with: shadow kube collect %s --namespace %s\n",
				cl.Namespace, o.Name, o.Shards, o.Name, cl.Namespace)
			return nil
		},
	}
	// The run flags, but for those kube job has its own meaning for
	// (--apply creates the Job) or that make no sense in a pod.
	tmp := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.register(tmp)
	tmp.VisitAll(func(fl *pflag.Flag) {
		if !kubeJobOwn[fl.Name] || fl.Name == "dir" {
			c.Flags().AddFlag(fl)
		}
	})
	fs := c.Flags()
	fs.IntVar(&o.Shards, "shards", 4, "how many shards (the Job's completions and parallelism)")
	fs.StringVar(&o.Image, "image", "", "the pods' image: shadow and the project's toolchain (docs/kube.md)")
	fs.StringVar(&o.Name, "name", "", "the Job's name (default shadow- and a digest of the spec, command, shard count and commit)")
	conn.register(fs)
	fs.BoolVar(&apply, "apply", false, "create the ConfigMap and the Job through the API instead of printing them")
	fs.StringVar(&gitURL, "mirror-git", "", "the pods fetch this checkout's commit from this repository URL (an init container; default: the origin remote's URL)")
	fs.StringVar(&pvc, "mirror-pvc", "", "the pods mount the checkout from this PersistentVolumeClaim, CLAIM[:PATH-IN-IT] (ReadOnlyMany, read-only)")
	fs.StringVar(&hostPath, "mirror", "", "the pods mount the checkout from this directory on the nodes (a hostPath: Pod Security's baseline level refuses it)")
	fs.StringArrayVar(&selector, "node-selector", nil, "schedule on nodes with these labels, KEY=VALUE[,KEY=VALUE] (repeatable)")
	fs.StringArrayVar(&tolerations, "toleration", nil, "tolerate a taint, KEY[=VALUE][:EFFECT] as kubectl taint writes it (repeatable)")
	fs.StringVar(&o.ServiceAccount, "service-account", "", "the pods' service account (serviceAccountName; its token is not mounted)")
	fs.StringArrayVar(&o.ImagePullSecrets, "image-pull-secret", nil, "a Secret the kubelet pulls --image with (imagePullSecrets; repeatable)")
	fs.StringVar(&o.Shadow, "shadow-path", "shadow", "the shadow binary in the image")
	fs.Int32Var(&o.BackoffLimitPerIndex, "backoff-limit-per-index", 2, "retries of one index after a failed pod before that index fails")
	fs.Int32Var(&o.TTL, "ttl", 86400, "seconds the finished Job, its pods (their logs) and the ConfigMap stay (ttlSecondsAfterFinished): collect before")
	fs.IntVar(&o.CPUs, "cpus", 2, "CPUs per pod, requested and limited (0: none), also the shard's -j unless given")
	fs.StringVar(&o.Memory, "pod-memory", "4Gi", "memory per pod, requested and limited (\"\": none); with --cpus, the Guaranteed QoS class. --memory stays each hypothesis's cap")
	fs.BoolVar(&o.Privileged, "privileged", false, "run the pods privileged, for overlay mode's namespaces (only a namespace at Pod Security's privileged level admits it; without, shadow picks copy mode sealed with Landlock)")
	return c
}

// within reports whether path is dir or beneath it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// relativeFileSource is the first edit "file" source given relative to the
// spec's directory, "" when none is.
func relativeFileSource(spec *engine.Spec) string {
	var edits []engine.SpecEdit
	if spec.Common != nil {
		edits = append(edits, spec.Common.Edits...)
	}
	for _, h := range spec.Hypotheses {
		edits = append(edits, h.Edits...)
	}
	for _, e := range edits {
		if e.File != "" && !filepath.IsAbs(e.File) {
			return e.File
		}
	}
	return ""
}

func kubeCollectCommand(s Streams) *cobra.Command {
	var conn kubeConn
	var asJSON bool
	var logsDir string
	c := &cobra.Command{
		Use:   "collect JOB [--namespace NS] [--json] [--logs-dir DIR]",
		Short: "wait for a shadow kube Job and merge its pods' reports as shadow merge does",
		Long: `collect follows the pods of JOB (made by shadow kube job), waits for the Job to
finish, reads from each index's completed pod its --events stream, and merges
the shards exactly as shadow merge does (--json: one JSON report). It refuses
(exit 2, naming the index and the pod) a failed Job (the reason: the pod
failure policy's exit 2, an index past its retries) and an index whose pod is
gone. --logs-dir DIR reads each pod's output from DIR/POD.log instead of the
pod log API (where logs are shipped elsewhere). Exit codes as shadow merge's.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage("kube collect: give the Job's name (shadow kube job printed it)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			cl, err := kube.Connect(conn.kubeconfig, conn.context, conn.namespace)
			if err != nil {
				return err
			}
			shards, err := cl.Collect(ctx, kube.CollectOptions{Job: args[0], LogsDir: logsDir, Progress: s.Err})
			if err != nil {
				if ctx.Err() != nil {
					return exit(run.ExitInterrupted)
				}
				return err
			}
			reps := make([]*engine.Report, len(shards))
			names := make([]string, len(shards))
			for i, sh := range shards {
				reps[i], names[i] = sh.Report, sh.Label()
			}
			merged, err := judge.MergeShards(reps, names)
			if err != nil {
				var me *judge.MergeError
				if errors.As(err, &me) {
					return specErr("kube collect: %s", me.Msg)
				}
				return err
			}
			return writeMerged(s, merged, asJSON)
		},
	}
	conn.register(c.Flags())
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON report (shadow.report/v1, merged_from set) on stdout")
	c.Flags().StringVar(&logsDir, "logs-dir", "", "read each pod's output from DIR/POD.log instead of the pod log API")
	return c
}
