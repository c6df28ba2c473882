package fakebus

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// The JSON Schema of the script file, docs/fakesystemd-script.schema.json,
// is checked against the Go types and lists that decode script files, and
// against every example script, so that it cannot drift from them.

const schemaFile = "../docs/fakesystemd-script.schema.json"

// exampleScripts are the script files the repository ships.
var exampleScripts = []string{
	"cmd/fakesystemd/testdata/example.json",
	"../examples/fakesystemd/script.json",
}

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	return s
}

// jsonTags are the JSON field names of struct type v.
func jsonTags(v any) []string {
	var names []string
	rt := reflect.TypeOf(v)
	for i := 0; i < rt.NumField(); i++ {
		names = append(names, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
	}
	sort.Strings(names)
	return names
}

func keys(m any) []string {
	var names []string
	for k := range m.(map[string]any) {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func strs(l any) []string {
	var out []string
	for _, x := range l.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func sorted(l []string) []string {
	sort.Strings(l)
	return l
}

func at(s map[string]any, path ...string) any {
	var v any = s
	for _, p := range path {
		v = v.(map[string]any)[p]
	}
	return v
}

func TestScriptSchemaMatchesGoTypes(t *testing.T) {
	s := loadSchema(t)
	var results []string
	for _, r := range jobResults {
		results = append(results, string(r))
	}
	var faults []string
	for n := range faultNames {
		faults = append(faults, n)
	}
	sort.Strings(faults)
	for _, tt := range []struct {
		name      string
		want, got []string
	}{
		{"top-level fields", jsonTags(scriptFile{}), keys(at(s, "properties"))},
		{"fields of scripts[]", jsonTags(scriptJSON{}), keys(at(s, "$defs", "script", "properties"))},
		{"fields of units[]", jsonTags(unitJSON{}), keys(at(s, "$defs", "unit", "properties"))},
		{"job results", results, strs(at(s, "$defs", "jobResult", "enum"))},
		{"unit results", unitResults, strs(at(s, "$defs", "script", "properties", "unit_result", "enum"))},
		{"faults", faults, sorted(strs(at(s, "$defs", "script", "properties", "faults", "items", "enum")))},
		{"required in scripts[]", []string{"pattern"}, strs(at(s, "$defs", "script", "required"))},
		{"required in units[]", []string{"name"}, strs(at(s, "$defs", "unit", "required"))},
	} {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s: schema differs from the Go code (-go +schema):\n%s", tt.name, diff)
		}
	}
	// The unit types of the name pattern are sdbus's.
	re := regexp.MustCompile(`\(([a-z|]+)\)\$$`)
	m := re.FindStringSubmatch(at(s, "$defs", "unitName", "pattern").(string))
	if m == nil {
		t.Fatalf("unitName pattern has no (type|...)$ group")
	}
	for _, typ := range strings.Split(m[1], "|") {
		if err := sdbus.ValidateUnitName("x." + typ); err != nil {
			t.Errorf("schema unit type %q: %v", typ, err)
		}
	}
	for _, typ := range []string{"service", "socket", "device", "mount", "automount", "swap", "target", "path", "timer", "slice", "scope"} {
		if !slices.Contains(strings.Split(m[1], "|"), typ) {
			t.Errorf("unit type %q missing from the schema's unit name pattern", typ)
		}
	}
}

// TestScriptSchemaExamples checks that every example script is valid by
// the schema and by fakesystemd.
func TestScriptSchemaExamples(t *testing.T) {
	s := loadSchema(t)
	files := append([]string{}, exampleScripts...)
	docs, _ := filepath.Glob("../docs/*.md")
	if len(docs) == 0 {
		t.Fatal("no docs/*.md")
	}
	for _, name := range files {
		t.Run(filepath.Base(filepath.Dir(name))+"/"+filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			checkExample(t, s, data)
		})
	}
	// The script files shown in the docs: ```json blocks with a
	// "scripts" or "units" field.
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, block := range jsonBlocks(string(data)) {
			if !strings.Contains(block, `"scripts"`) && !strings.Contains(block, `"units"`) {
				continue
			}
			t.Run(fmt.Sprintf("%s/block%d", filepath.Base(doc), i), func(t *testing.T) {
				checkExample(t, s, []byte(block))
			})
		}
	}
}

func checkExample(t *testing.T, s map[string]any, data []byte) {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if errs := validate(s, s, doc, "$"); len(errs) > 0 {
		t.Errorf("invalid by the schema:\n%s", strings.Join(errs, "\n"))
	}
	if _, err := ParseScriptFile(data); err != nil {
		t.Errorf("invalid for ParseScriptFile: %v", err)
	}
}

// jsonBlocks are the ```json fenced blocks of a Markdown text.
func jsonBlocks(md string) []string {
	var blocks []string
	for {
		i := strings.Index(md, "```json\n")
		if i < 0 {
			return blocks
		}
		md = md[i+len("```json\n"):]
		j := strings.Index(md, "```")
		if j < 0 {
			return blocks
		}
		blocks = append(blocks, md[:j])
		md = md[j:]
	}
}

// TestScriptSchemaAgreesWithGo checks documents that the schema and
// ParseScriptFile must both accept or both refuse.
func TestScriptSchemaAgreesWithGo(t *testing.T) {
	s := loadSchema(t)
	tests := []struct {
		name  string
		doc   string
		valid bool
	}{
		{"empty object", `{}`, true},
		{"comment", `{"comment": "x"}`, true},
		{"unknown field", `{"scriptz": []}`, false},
		{"scripts not an array", `{"scripts": {}}`, false},
		{"minimal rule", `{"scripts": [{"pattern": "*.service"}]}`, true},
		{"rule without pattern", `{"scripts": [{"result": "done"}]}`, false},
		{"empty pattern", `{"scripts": [{"pattern": ""}]}`, false},
		{"unknown rule field", `{"scripts": [{"pattern": "a", "reslt": "done"}]}`, false},
		{"every rule field", `{"scripts": [{"comment": "c", "pattern": "a*", "result": "failed", "results": ["", "timeout"], "unit_result": "core-dump", "exit_status": 11, "delay": "1m30s", "reply_delay": ".5s", "faults": ["drop-connection"]}]}`, true},
		{"unknown result", `{"scripts": [{"pattern": "a", "result": "ok"}]}`, false},
		{"unknown step result", `{"scripts": [{"pattern": "a", "results": ["done", "nope"]}]}`, false},
		{"unknown unit result", `{"scripts": [{"pattern": "a", "result": "failed", "unit_result": "exit"}]}`, false},
		{"exit status", `{"scripts": [{"pattern": "a", "result": "failed", "exit_status": 3}]}`, true},
		{"exit status 0", `{"scripts": [{"pattern": "a", "exit_status": 0}]}`, true},
		{"signal", `{"scripts": [{"pattern": "a", "result": "failed", "unit_result": "signal", "exit_status": 9}]}`, true},
		{"exit status above 255", `{"scripts": [{"pattern": "a", "result": "failed", "exit_status": 256}]}`, false},
		{"negative exit status", `{"scripts": [{"pattern": "a", "result": "failed", "exit_status": -1}]}`, false},
		{"fractional exit status", `{"scripts": [{"pattern": "a", "result": "failed", "exit_status": 1.5}]}`, false},
		{"exit status as a string", `{"scripts": [{"pattern": "a", "result": "failed", "exit_status": "3"}]}`, false},
		{"unknown fault", `{"scripts": [{"pattern": "a", "faults": ["dup"]}]}`, false},
		{"fault not a string", `{"scripts": [{"pattern": "a", "faults": [1]}]}`, false},
		{"duration without unit", `{"reload_duration": "5"}`, false},
		{"negative duration", `{"reload_duration": "-1s"}`, false},
		{"zero duration", `{"reload_duration": "0"}`, true},
		{"empty duration", `{"reload_duration": ""}`, true},
		{"fractional duration", `{"reload_duration": "1.5s"}`, true},
		{"duration as a number", `{"reload_duration": 5}`, false},
		{"minimal unit", `{"units": [{"name": "a.service"}]}`, true},
		{"unit without name", `{"units": [{"masked": true}]}`, false},
		{"unit name without type", `{"units": [{"name": "app"}]}`, false},
		{"unit name of unknown type", `{"units": [{"name": "app.foo"}]}`, false},
		{"unit name starting with @", `{"units": [{"name": "@a.service"}]}`, false},
		{"template instance", `{"units": [{"name": "getty@tty1.service", "aliases": ["x\\x2dy.service"]}]}`, true},
		{"unit name with a slash", `{"units": [{"name": "a/b.service"}]}`, false},
		{"invalid alias", `{"units": [{"name": "a.service", "aliases": ["b"]}]}`, false},
		{"masked as a string", `{"units": [{"name": "a.service", "masked": "yes"}]}`, false},
		{"unknown unit field", `{"units": [{"name": "a.service", "enabled": true}]}`, false},
		{"properties", `{"units": [{"name": "a.service", "properties": {"MemoryMax": "t 5", "ExecStart": "a(sasb) [('/bin/true', ['/bin/true'], false)]"}}]}`, true},
		{"property not a string", `{"units": [{"name": "a.service", "properties": {"MemoryMax": 5}}]}`, false},
		{"property without a type", `{"units": [{"name": "a.service", "properties": {"Description": "hello"}}]}`, false},
		{"property name with a dash", `{"units": [{"name": "a.service", "properties": {"Memory-Max": "t 5"}}]}`, false},
		{"property name starting with a digit", `{"units": [{"name": "a.service", "properties": {"1Max": "t 5"}}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc any
			if err := json.Unmarshal([]byte(tt.doc), &doc); err != nil {
				t.Fatal(err)
			}
			errs := validate(s, s, doc, "$")
			if schemaValid := len(errs) == 0; schemaValid != tt.valid {
				t.Errorf("schema: valid=%v, want %v (%v)", schemaValid, tt.valid, errs)
			}
			_, err := ParseScriptFile([]byte(tt.doc))
			if goValid := err == nil; goValid != tt.valid {
				t.Errorf("ParseScriptFile: valid=%v, want %v (%v)", goValid, tt.valid, err)
			}
		})
	}
}

// validate checks v against schema node n of root, for the keywords the
// script schema uses, and returns the problems found. A keyword it does
// not know is a problem too, so that the schema cannot use one this test
// would silently skip.
func validate(root, n map[string]any, v any, path string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	for k, kv := range n {
		switch k {
		case "$schema", "$id", "title", "description", "$defs":
		case "$ref":
			ref := kv.(string)
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			def, found := at(root, "$defs").(map[string]any)[name].(map[string]any)
			if !ok || !found {
				fail("unresolvable $ref %q", ref)
				continue
			}
			errs = append(errs, validate(root, def, v, path)...)
		case "type":
			if !hasType(v, kv.(string)) {
				fail("want %s, got %s", kv, jsonTypeName(v))
			}
		case "enum":
			if !slices.ContainsFunc(kv.([]any), func(x any) bool { return reflect.DeepEqual(x, v) }) {
				fail("%v is not one of %v", v, kv)
			}
		case "const":
			if !reflect.DeepEqual(kv, v) {
				fail("%v is not %v", v, kv)
			}
		case "pattern":
			if str, ok := v.(string); ok && !regexp.MustCompile(kv.(string)).MatchString(str) {
				fail("%q does not match %s", str, kv)
			}
		case "minLength", "maxLength":
			if str, ok := v.(string); ok {
				l, lim := utf8.RuneCountInString(str), int(kv.(float64))
				if k == "minLength" && l < lim || k == "maxLength" && l > lim {
					fail("%q: length %d, %s %d", str, l, k, lim)
				}
			}
		case "minimum", "maximum":
			if num, ok := v.(float64); ok {
				lim := kv.(float64)
				if k == "minimum" && num < lim || k == "maximum" && num > lim {
					fail("%v: %s %v", num, k, lim)
				}
			}
		case "required":
			if obj, ok := v.(map[string]any); ok {
				for _, r := range strs(kv) {
					if _, has := obj[r]; !has {
						fail("missing %q", r)
					}
				}
			}
		case "properties", "additionalProperties", "propertyNames":
			obj, ok := v.(map[string]any)
			if !ok {
				continue
			}
			props, _ := n["properties"].(map[string]any)
			for name, fv := range obj {
				switch k {
				case "properties":
					if ps, has := props[name]; has {
						errs = append(errs, validate(root, ps.(map[string]any), fv, path+"."+name)...)
					}
				case "additionalProperties":
					if _, has := props[name]; has {
						continue
					}
					switch ap := kv.(type) {
					case bool:
						if !ap {
							fail("unknown field %q", name)
						}
					case map[string]any:
						errs = append(errs, validate(root, ap, fv, path+"."+name)...)
					}
				case "propertyNames":
					errs = append(errs, validate(root, kv.(map[string]any), name, path+"."+name+" (name)")...)
				}
			}
		case "items":
			if arr, ok := v.([]any); ok {
				for i, x := range arr {
					errs = append(errs, validate(root, kv.(map[string]any), x, fmt.Sprintf("%s[%d]", path, i))...)
				}
			}
		case "anyOf":
			matched := false
			for _, alt := range kv.([]any) {
				if len(validate(root, alt.(map[string]any), v, path)) == 0 {
					matched = true
				}
			}
			if !matched {
				fail("%v matches none of anyOf", v)
			}
		default:
			fail("schema keyword %q is unknown to this test's validator", k)
		}
	}
	return errs
}

func hasType(v any, typ string) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	}
	return false
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
