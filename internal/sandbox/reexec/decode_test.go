//go:build unix

package reexec

import (
	"errors"
	"strings"
	"testing"
)

// Decode tells the three ends of a helper apart: a report, a helper
// stopped on cancel before it reported (no error: the context says why),
// and one that died or wrote garbage (an error naming it).
func TestDecode(t *testing.T) {
	var v struct{ Exit int }
	if ok, err := (Result{Status: []byte(`{"Exit":3}`)}).Decode(&v, "the helper"); !ok || err != nil || v.Exit != 3 {
		t.Errorf("report: ok %v err %v v %+v", ok, err, v)
	}
	if ok, err := (Result{Cancelled: true}).Decode(&v, "the helper"); ok || err != nil {
		t.Errorf("cancelled before it reported: ok %v err %v", ok, err)
	}
	if ok, err := (Result{Wait: errors.New("signal: killed")}).Decode(&v, "the helper"); ok || err == nil || !strings.Contains(err.Error(), "the helper ended without a report: signal: killed") {
		t.Errorf("died: ok %v err %v", ok, err)
	}
	if ok, err := (Result{Status: []byte("{")}).Decode(&v, "the helper"); ok || err == nil || !strings.Contains(err.Error(), "the helper's report is unreadable") {
		t.Errorf("garbage: ok %v err %v", ok, err)
	}
}
