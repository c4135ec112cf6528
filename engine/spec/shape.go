package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/shadow-dev/shadow/internal/suggest"
)

// checkShape walks the JSON tokens against Spec's json tags: exact key
// names, no repeated keys, the right JSON type for every value, nothing
// after the document.
func checkShape(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := shapeWalker{dec: dec}
	if err := w.walk(reflect.TypeOf(Spec{}), ""); err != nil {
		return w.locate(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return &SpecError{Msg: "trailing data after the spec at " + position(data, dec.InputOffset())}
	}
	return nil
}

type shapeWalker struct{ dec *json.Decoder }

// shapeErr is a refusal at a JSON path such as hypotheses[1].edits[0].path.
type shapeErr struct{ path, msg string }

func (e *shapeErr) Error() string { return e.path + ": " + e.msg }

func (w shapeWalker) walk(t reflect.Type, path string) error {
	tok, err := w.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return &syntaxErr{offset: w.dec.InputOffset(), err: err}
	}
	if tok == nil {
		return nil // null leaves the zero value, as encoding/json does
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if _, ok := tok.(string); ok && t == reflect.TypeOf(RemoteNode{}) {
		return nil // a remote node may be written as its bare name
	}
	want := map[reflect.Kind]string{reflect.Struct: "an object", reflect.Map: "an object",
		reflect.Slice: "an array", reflect.String: "a string", reflect.Int: "an integer", reflect.Bool: "true or false"}[t.Kind()]
	wrong := &shapeErr{path, "must be " + want}
	switch t.Kind() {
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return wrong
		}
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return wrong
		}
	case reflect.Int:
		n, ok := tok.(json.Number)
		if !ok {
			return wrong
		}
		if _, err := strconv.Atoi(n.String()); err != nil {
			return wrong
		}
	case reflect.Slice:
		if tok != json.Delim('[') {
			return wrong
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.walk(t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
		return err
	case reflect.Struct, reflect.Map:
		if tok != json.Delim('{') {
			return wrong
		}
		seen := map[string]bool{}
		for w.dec.More() {
			k, err := w.dec.Token()
			if err != nil {
				return err
			}
			key := k.(string)
			sub := key
			if path != "" {
				sub = path + "." + key
			}
			if seen[key] {
				return &shapeErr{sub, "given twice"}
			}
			seen[key] = true
			var ft reflect.Type
			if t.Kind() == reflect.Map {
				ft = t.Elem()
			} else {
				f, ok := fieldByTag(t, key)
				if !ok {
					return &shapeErr{sub, unknownField(t, key)}
				}
				ft = f.Type
			}
			if err := w.walk(ft, sub); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
		return err
	}
	return nil
}

// unknownField says a key is not a field of t, naming the field it was
// most likely meant to be ("edit" for "edits").
func unknownField(t reflect.Type, key string) string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	if near := suggest.Closest(key, names); near != "" {
		return fmt.Sprintf("unknown field: did you mean %q?", near)
	}
	return "unknown field (the fields are: " + strings.Join(names, ", ") + ")"
}

func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// locate turns a shapeErr into a SpecError naming the hypothesis when the
// path is inside one whose name can be read.
func (w shapeWalker) locate(data []byte, err error) error {
	var se *shapeErr
	var syn *syntaxErr
	var js *json.SyntaxError
	if errors.As(err, &syn) || errors.As(err, &js) {
		return syntaxAt(data, err)
	}
	if !errors.As(err, &se) {
		var specErr *SpecError
		if errors.As(err, &specErr) {
			return specErr
		}
		return &SpecError{Msg: "invalid JSON: " + err.Error()}
	}
	out := &SpecError{Field: se.path, Msg: se.msg}
	var i int
	var rest string
	if n, _ := fmt.Sscanf(se.path, "hypotheses[%d]", &i); n == 1 {
		_, rest, _ = strings.Cut(se.path, "].")
		var loose struct{ Hypotheses []json.RawMessage }
		_ = json.Unmarshal(data, &loose)
		if i < len(loose.Hypotheses) && rest != "" {
			// Exact key only: a "Name" key is itself the refused field.
			var h map[string]json.RawMessage
			var name string
			if json.Unmarshal(loose.Hypotheses[i], &h) == nil && json.Unmarshal(h["name"], &name) == nil && name != "" {
				out.Hyp, out.Field = name, rest
			}
		}
	}
	return out
}
