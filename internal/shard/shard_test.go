package shard

import (
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"testing"
	"testing/quick"
)

// Every name lands in exactly one shard, shard sizes differ by at most one,
// and the partition does not depend on the order of the names.
func TestPartitionIsDeterministicBalancedAndOrderFree(t *testing.T) {
	f := func(seed int64, n uint8, count uint8) bool {
		r := rand.New(rand.NewSource(seed))
		c := int(count%9) + 1
		names := map[string]bool{}
		for len(names) < int(n%80) {
			names["h"+strconv.Itoa(r.Intn(1e6))] = true
		}
		var list []string
		for k := range names {
			list = append(list, k)
		}
		shuffled := append([]string(nil), list...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if !reflect.DeepEqual(Assign(list, c), Assign(shuffled, c)) {
			return false
		}
		seen := map[string]int{}
		min, max := len(list)+1, -1
		for k := 0; k < c; k++ {
			part := Of(shuffled, Shard{Index: k, Count: c})
			for _, p := range part {
				seen[p]++
			}
			if len(part) < min {
				min = len(part)
			}
			if len(part) > max {
				max = len(part)
			}
		}
		for _, name := range list {
			if seen[name] != 1 {
				return false
			}
		}
		return len(list) == 0 || max-min <= 1
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 300}); err != nil {
		t.Fatal(err)
	}
}

// The assignment is a fixed function of the names: pin a few so a change
// of hash or order (which would reshuffle every running fleet's shards
// between versions) fails here.
func TestPartitionIsPinned(t *testing.T) {
	got := Of([]string{"a", "b", "c", "d", "e"}, Shard{Index: 0, Count: 2})
	sort.Strings(got)
	want := []string{"a", "b", "d"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("shard 0/2 of a..e = %v, want %v", got, want)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  Shard
		given bool
		bad   bool
	}{
		{"0/4", Shard{0, 4}, true, false},
		{"3/4", Shard{3, 4}, true, false},
		{"/4", Shard{0, 4}, false, false},
		{"4/4", Shard{}, false, true},
		{"-1/4", Shard{}, false, true},
		{"1/0", Shard{}, false, true},
		{"x", Shard{}, false, true},
		{"1/x", Shard{}, false, true},
	} {
		s, given, err := Parse(c.in)
		if (err != nil) != c.bad || (!c.bad && (s != c.want || given != c.given)) {
			t.Errorf("Parse(%q) = %v, %v, %v", c.in, s, given, err)
		}
	}
}

func TestIndexFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if i, v, err := IndexFromEnv("", 4, env(map[string]string{"SLURM_ARRAY_TASK_ID": "2"})); err != nil || i != 2 || v != "SLURM_ARRAY_TASK_ID" {
		t.Errorf("slurm: %d %s %v", i, v, err)
	}
	if i, _, err := IndexFromEnv("", 4, env(map[string]string{"CI_NODE_INDEX": "4"})); err != nil || i != 3 {
		t.Errorf("gitlab counts from 1: %d %v", i, err)
	}
	if _, _, err := IndexFromEnv("MY_IDX", 4, env(map[string]string{"JOB_COMPLETION_INDEX": "1"})); err == nil {
		t.Error("a named variable that is unset must be refused, not another one used")
	}
	if _, _, err := IndexFromEnv("", 4, env(map[string]string{"JOB_COMPLETION_INDEX": "7"})); err == nil {
		t.Error("an index past the count must be refused")
	}
	if _, _, err := IndexFromEnv("", 4, env(nil)); err == nil {
		t.Error("no index at all must be refused")
	}
}
