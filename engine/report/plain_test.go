package report

import (
	"reflect"
	"strings"
	"testing"
)

// The contract is plain data (docs/report.md "Stability rules"): no type of
// it has an unexported field, so a reader of the JSON has all there is, and
// a result or an event carries nothing its JSON does not (the TUI ranks a
// live run from the events it receives, `shadow watch` from the same
// events read back from events.ndjson: they must agree). Report alone has
// fields the JSON leaves out, the run's flags its text writer reads.
func TestContractTypesArePlainData(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || typ.PkgPath() != reflect.TypeFor[Report]().PkgPath() {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			where := path + "." + f.Name
			if !f.IsExported() {
				t.Errorf("%s: unexported field in a contract type", where)
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == "-" && typ != reflect.TypeFor[Report]() {
				t.Errorf("%s: a field the JSON does not carry (json:\"-\")", where)
			}
			walk(f.Type, where)
		}
	}
	walk(reflect.TypeFor[Report](), "Report")
	walk(reflect.TypeFor[Event](), "Event")
	for _, typ := range []reflect.Type{reflect.TypeFor[Result](), reflect.TypeFor[Tests](), reflect.TypeFor[RankKey](), reflect.TypeFor[ShardInfo](), reflect.TypeFor[ShardCross]()} {
		if !seen[typ] {
			t.Errorf("%s not reached from Report or Event", typ)
		}
	}
}
