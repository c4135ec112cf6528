package parse

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
)

// ParseJUnit reads a JUnit XML report (<testsuites> or a single <testsuite>,
// suites may nest) as pytest --junitxml, ctest --output-junit, jest-junit,
// Surefire and most CI tools write it. A testcase with <failure> or <error>
// counts as failed, with <skipped> as skipped, else passed. A suite that
// lists no testcases (a summary-only report) contributes its tests,
// failures, errors and skipped attributes instead. Names are
// "classname.name", or "name" when there is no classname (or it repeats the
// name, as ctest writes it). Framework "junit".
func ParseJUnit(data []byte) (*Summary, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	// Reports in other encodings are rare; read their bytes as they are
	// rather than refuse them (names may then carry mojibake).
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	for {
		tok, err := dec.Token()
		if err != nil {
			if err == io.EOF {
				return nil, errors.New("junit: no testsuites or testsuite element")
			}
			return nil, err
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		var root junitSuite
		switch start.Name.Local {
		case "testsuites", "testsuite":
			if err := dec.DecodeElement(&root, &start); err != nil {
				return nil, err
			}
		default:
			return nil, errors.New("junit: root element is <" + start.Name.Local + ">, not <testsuites> or <testsuite>")
		}
		var t tally
		root.add(&t)
		t.seen = true
		s := t.summary("junit")
		return s, nil
	}
}

// junitSuite is either <testsuites> or <testsuite>: both may hold suites,
// only testsuite holds cases, but decoding them alike lets suites nest.
type junitSuite struct {
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Disabled int          `xml:"disabled,attr"`
	Suites   []junitSuite `xml:"testsuite"`
	Cases    []junitCase  `xml:"testcase"`
}

type junitCase struct {
	Name      string     `xml:"name,attr"`
	Classname string     `xml:"classname,attr"`
	Failures  []xml.Name `xml:"failure"`
	Errors    []xml.Name `xml:"error"`
	Skipped   []xml.Name `xml:"skipped"`
}

func (s *junitSuite) add(t *tally) {
	for i := range s.Suites {
		s.Suites[i].add(t)
	}
	for _, c := range s.Cases {
		name := c.Name
		if c.Classname != "" && c.Classname != c.Name {
			name = c.Classname + "." + c.Name
		}
		switch {
		case len(c.Failures) > 0 || len(c.Errors) > 0:
			t.outcome(name, fail, true)
		case len(c.Skipped) > 0:
			t.outcome(name, skip, true)
		default:
			t.outcome(name, pass, true)
		}
	}
	if len(s.Cases) == 0 && len(s.Suites) == 0 {
		f := max(s.Failures, 0) + max(s.Errors, 0)
		sk := max(s.Skipped, 0) + max(s.Disabled, 0)
		t.cur.add(counts{max(s.Tests-f-sk, 0), f, sk})
	}
}
