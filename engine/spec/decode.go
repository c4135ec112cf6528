package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// LoadSpec reads a spec from path ("-" = the stdin reader given) and decodes
// it strictly: unknown or repeated fields, wrong types and trailing data are
// refused. specDir is the spec file's directory (the current directory for
// "-"): edits' "file" sources are relative to it. Every error is a
// *SpecError.
func LoadSpec(path string, stdin io.Reader) (spec *Spec, specDir string, err error) {
	var data []byte
	if path == "-" {
		if stdin == nil {
			return nil, "", &SpecError{Msg: "spec on stdin, but no stdin"}
		}
		data, err = io.ReadAll(stdin)
		if err == nil {
			specDir, err = os.Getwd()
		}
	} else {
		data, err = os.ReadFile(path)
		if err == nil {
			specDir, err = filepath.Abs(filepath.Dir(path))
		}
	}
	if err != nil {
		return nil, "", &SpecError{Msg: fmt.Sprintf("cannot read spec %s: %v", path, err)}
	}
	spec, err = DecodeSpec(data)
	if err != nil {
		return nil, "", err
	}
	return spec, specDir, nil
}

// DecodeSpec decodes and validates (without a workspace) a spec document,
// for callers that get it other than from a file (the MCP server). Every
// error is a *SpecError.
func DecodeSpec(data []byte) (*Spec, error) {
	// encoding/json matches keys case-insensitively and lets a repeated key
	// win silently; a spec is a contract, so walk the tokens first and
	// refuse anything the struct does not name exactly.
	if err := checkShape(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var spec Spec
	if err := dec.Decode(&spec); err != nil {
		return nil, &SpecError{Msg: "invalid spec: " + err.Error()}
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return &spec, nil
}
