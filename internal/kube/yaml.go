package kube

import (
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// WriteYAML prints the ConfigMap and the Job as one multi-document YAML
// stream for `kubectl create -f -`.
func WriteYAML(w io.Writer, o Options) error {
	job, cm := Build(o)
	fmt.Fprintf(w, "# shadow kube job: %d shards of %s as an Indexed Job.\n", o.Shards, o.SpecName)
	fmt.Fprintf(w, "# kubectl create -f THIS_FILE, then: shadow kube collect %s", o.Name)
	if o.Namespace != "" {
		fmt.Fprintf(w, " --namespace %s", o.Namespace)
	}
	fmt.Fprintf(w, "\n# The ConfigMap is not owned by the Job here (that needs the Job's UID):\n")
	fmt.Fprintf(w, "# kubectl delete configmap -l %s=%s once done. shadow kube job --apply\n", LabelRun, o.Name)
	fmt.Fprintf(w, "# makes the Job own it, so it goes with the Job.\n")
	for _, obj := range []any{cm, job} {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "---\n%s", b)
	}
	return nil
}
