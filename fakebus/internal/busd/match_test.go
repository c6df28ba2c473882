package busd

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

func TestParseMatchRule(t *testing.T) {
	tests := []struct {
		name string
		rule string
		want *matchRule
	}{
		{"empty", "", &matchRule{}},
		{"whitespace", "  ", &matchRule{}},
		{"typical", "type='signal',sender='org.freedesktop.systemd1',interface='org.freedesktop.systemd1.Manager',member='JobRemoved',path='/org/freedesktop/systemd1'",
			&matchRule{typ: dbus.TypeSignal, sender: "org.freedesktop.systemd1", iface: "org.freedesktop.systemd1.Manager", member: "JobRemoved", path: "/org/freedesktop/systemd1"}},
		{"unquoted", "type=signal,member=Foo", &matchRule{typ: dbus.TypeSignal, member: "Foo"}},
		{"spaces around keys", " type ='signal', member='Foo'", &matchRule{typ: dbus.TypeSignal, member: "Foo"}},
		{"trailing comma", "type='signal',", &matchRule{typ: dbus.TypeSignal}},
		{"all types", "type='method_call'", &matchRule{typ: dbus.TypeMethodCall}},
		{"method_return", "type='method_return'", &matchRule{typ: dbus.TypeMethodReply}},
		{"error", "type='error'", &matchRule{typ: dbus.TypeError}},
		{"escaped apostrophe", `arg0='don'\''t'`, &matchRule{args: []argMatch{{"don't", 0, argString}}}},
		{"backslash literal in quotes", `arg0='a\b'`, &matchRule{args: []argMatch{{`a\b`, 0, argString}}}},
		{"backslash literal outside quotes", `arg0=a\b`, &matchRule{args: []argMatch{{`a\b`, 0, argString}}}},
		{"trailing backslash", `arg0=a\`, &matchRule{args: []argMatch{{`a\`, 0, argString}}}},
		{"comma in quotes", "arg0='a,b'", &matchRule{args: []argMatch{{"a,b", 0, argString}}}},
		{"mixed quoting", "arg0=ab'cd'ef", &matchRule{args: []argMatch{{"abcdef", 0, argString}}}},
		{"empty value", "arg0=''", &matchRule{args: []argMatch{{"", 0, argString}}}},
		{"args sorted", "arg3='c',arg1path='/a/',arg0namespace='x'",
			&matchRule{args: []argMatch{{"x", 0, argNamespace}, {"/a/", 1, argPath}, {"c", 3, argString}}}},
		{"argNpath", "arg12path='/aa/bb/'", &matchRule{args: []argMatch{{"/aa/bb/", 12, argPath}}}},
		{"arg63", "arg63='x'", &matchRule{args: []argMatch{{"x", 63, argString}}}},
		{"arg0namespace", "arg0namespace='org.freedesktop'", &matchRule{args: []argMatch{{"org.freedesktop", 0, argNamespace}}}},
		{"arg0namespace single element", "arg0namespace='org'", &matchRule{args: []argMatch{{"org", 0, argNamespace}}}},
		{"path_namespace", "path_namespace='/org/freedesktop'", &matchRule{pathNS: "/org/freedesktop"}},
		{"destination", "destination=':1.5'", &matchRule{dest: ":1.5"}},
		{"eavesdrop", "eavesdrop='true'", &matchRule{eavesdrop: true}},
		{"eavesdrop false", "eavesdrop='false'", &matchRule{}},
		{"unique sender", "sender=':1.42'", &matchRule{sender: ":1.42"}},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMatchRule(tt.rule)
			if err != nil {
				t.Fatalf("parseMatchRule(%q): %v", tt.rule, err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(matchRule{}, argMatch{})); diff != "" {
				t.Errorf("parseMatchRule(%q) (-want +got):\n%s", tt.rule, diff)
			}
		})
	}
}

func TestParseMatchRuleInvalid(t *testing.T) {
	long := "arg0='"
	for len(long) < maxMatchRuleLen {
		long += "x"
	}
	long += "'"
	for _, rule := range []string{
		"type",
		"type 'signal'",
		"type= 'signal'", // values are not trimmed: " signal" is not a type
		"=signal",
		"type='signal",
		"type='bogus'",
		"type='signal',type='signal'",
		"sender='not a name'",
		"sender='.org.foo'",
		"interface='nodots'",
		"interface='org.2foo'",
		"member='a.b'",
		"member='2a'",
		"path='relative'",
		"path='/trailing/'",
		"path_namespace='//'",
		"path='/a',path_namespace='/a'",
		"destination='x'",
		"eavesdrop='yes'",
		"arg64='x'",
		"arg100='x'",
		"arg1namespace='x'",
		"arg0namespace='not valid'",
		"arg0namespace='a..b'",
		"arg0='x',arg0path='/x'",
		"arg0foo='x'",
		"bogus='x'",
		"argx='x'",
		long,
	} {
		rule := rule
		t.Run(rule[:min(len(rule), 40)], func(t *testing.T) {
			if r, err := parseMatchRule(rule); err == nil {
				t.Errorf("parseMatchRule(%q) = %+v, want error", rule, r)
			}
		})
	}
}

func TestMatchRuleEqual(t *testing.T) {
	a, _ := parseMatchRule("type='signal',arg1='x',arg0='y'")
	b, _ := parseMatchRule("arg0=y, arg1=x,type=signal")
	c, _ := parseMatchRule("type='signal',arg1='x'")
	if !a.equal(b) {
		t.Error("equivalent rules are not equal")
	}
	if a.equal(c) || c.equal(a) {
		t.Error("different rules are equal")
	}
}

func TestMatchRuleMatches(t *testing.T) {
	owners := map[string]string{
		"org.freedesktop.systemd1": ":1.1",
		"org.example.Other":        ":1.7",
	}
	owner := func(name string) string {
		if name[0] == ':' || name == driverName {
			return name
		}
		return owners[name]
	}
	signal := func(sender string, path dbus.ObjectPath, member string, body ...any) *msgInfo {
		return &msgInfo{typ: dbus.TypeSignal, sender: sender, path: path, iface: "org.freedesktop.systemd1.Manager", member: member, body: body}
	}
	jobRemoved := signal(":1.1", "/org/freedesktop/systemd1", "JobRemoved", uint32(7), dbus.ObjectPath("/org/freedesktop/systemd1/job/7"), "foo.service", "done")
	tests := []struct {
		name string
		rule string
		msg  *msgInfo
		want bool
	}{
		{"empty rule", "", jobRemoved, true},
		{"type", "type='signal'", jobRemoved, true},
		{"wrong type", "type='method_call'", jobRemoved, false},
		{"member", "member='JobRemoved'", jobRemoved, true},
		{"wrong member", "member='JobNew'", jobRemoved, false},
		{"interface", "interface='org.freedesktop.systemd1.Manager'", jobRemoved, true},
		{"wrong interface", "interface='org.freedesktop.DBus'", jobRemoved, false},
		{"path", "path='/org/freedesktop/systemd1'", jobRemoved, true},
		{"wrong path", "path='/org/freedesktop'", jobRemoved, false},
		{"sender unique", "sender=':1.1'", jobRemoved, true},
		{"sender other unique", "sender=':1.2'", jobRemoved, false},
		{"sender well-known", "sender='org.freedesktop.systemd1'", jobRemoved, true},
		{"sender well-known other owner", "sender='org.example.Other'", jobRemoved, false},
		{"sender well-known no owner", "sender='org.example.Nobody'", jobRemoved, false},
		{"sender well-known forged unique", "sender='org.freedesktop.systemd1'", signal(":1.9", "/", "JobRemoved"), false},
		{"sender well-known forged literally", "sender='org.freedesktop.systemd1'", signal("org.freedesktop.systemd1", "/", "JobRemoved"), false},
		{"sender missing", "sender=':1.1'", signal("", "/", "JobRemoved"), false},
		{"sender driver", "sender='org.freedesktop.DBus'", signal(driverName, "/org/freedesktop/DBus", "NameOwnerChanged"), true},
		{"path_namespace equal", "path_namespace='/org/freedesktop/systemd1'", jobRemoved, true},
		{"path_namespace parent", "path_namespace='/org/freedesktop'", jobRemoved, true},
		{"path_namespace root", "path_namespace='/'", jobRemoved, true},
		{"path_namespace not a component prefix", "path_namespace='/org/free'", jobRemoved, false},
		{"path_namespace child", "path_namespace='/org/freedesktop/systemd1/unit'", jobRemoved, false},
		{"arg0 string vs uint32", "arg0='7'", jobRemoved, false},
		{"arg2", "arg2='foo.service'", jobRemoved, true},
		{"arg2 wrong", "arg2='bar.service'", jobRemoved, false},
		{"arg3 and arg2", "arg2='foo.service',arg3='done'", jobRemoved, true},
		{"arg past end", "arg4='x'", jobRemoved, false},
		{"argN does not match object path", "arg1='/org/freedesktop/systemd1/job/7'", jobRemoved, false},
		{"argNpath object path equal", "arg1path='/org/freedesktop/systemd1/job/7'", jobRemoved, true},
		{"argNpath rule prefix with slash", "arg1path='/org/freedesktop/systemd1/'", jobRemoved, true},
		{"argNpath rule prefix without slash", "arg1path='/org/freedesktop/systemd1'", jobRemoved, false},
		{"argNpath root", "arg1path='/'", jobRemoved, true},
		{"argNpath string arg", "arg2path='foo.service'", jobRemoved, true},
		{"argNpath non-string", "arg0path='/'", jobRemoved, false},
		{"argNpath arg is prefix of rule", "arg0path='/aa/bb/cc'", signal(":1.1", "/", "X", "/aa/"), true},
		{"argNpath arg not slash-terminated", "arg0path='/aa/bb/cc'", signal(":1.1", "/", "X", "/aa"), false},
		{"argNpath spec example 1", "arg0path='/aa/bb/'", signal(":1.1", "/", "X", "/aa/bb/cc/"), true},
		{"argNpath spec example 2", "arg0path='/aa/bb/'", signal(":1.1", "/", "X", "/aa/bb/cc"), true},
		{"argNpath spec example 3", "arg0path='/aa/bb/'", signal(":1.1", "/", "X", "/"), true},
		{"argNpath spec example 4", "arg0path='/aa/bb/'", signal(":1.1", "/", "X", "/aa/b"), false},
		{"argNpath spec example 5", "arg0path='/aa/bb/'", signal(":1.1", "/", "X", "/aa"), false},
		{"argNpath spec example 6", "arg0path='/aa/bb/'", signal(":1.1", "/", "X", "/aa/bb"), false},
		{"arg0namespace equal", "arg0namespace='com.example.backend1'", signal(":1.1", "/", "X", "com.example.backend1"), true},
		{"arg0namespace child", "arg0namespace='com.example.backend1'", signal(":1.1", "/", "X", "com.example.backend1.foo.bar"), true},
		{"arg0namespace not a component prefix", "arg0namespace='com.example.backend1'", signal(":1.1", "/", "X", "com.example.backend2"), false},
		{"arg0namespace longer element", "arg0namespace='com.example.backend1'", signal(":1.1", "/", "X", "com.example.backend10"), false},
		{"arg0namespace parent", "arg0namespace='com.example.backend1'", signal(":1.1", "/", "X", "com.example"), false},
		{"named string type", "arg0='x'", signal(":1.1", "/", "X", testString("x")), true},
		{"destination unique", "destination=':1.5'", &msgInfo{typ: dbus.TypeSignal, dest: ":1.5"}, true},
		{"destination other", "destination=':1.5'", &msgInfo{typ: dbus.TypeSignal, dest: ":1.6"}, false},
		{"destination via well-known", "destination='org.example.Other'", &msgInfo{typ: dbus.TypeMethodCall, dest: ":1.7"}, true},
		{"destination broadcast", "destination=':1.5'", jobRemoved, false},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseMatchRule(tt.rule)
			if err != nil {
				t.Fatalf("parseMatchRule(%q): %v", tt.rule, err)
			}
			if got := r.matches(tt.msg, owner); got != tt.want {
				t.Errorf("rule %q matches %+v = %v, want %v", tt.rule, *tt.msg, got, tt.want)
			}
		})
	}
}

type testString string

func TestValidNames(t *testing.T) {
	tests := []struct {
		name                          string
		bus, iface, member, namespace bool
	}{
		{name: "org.freedesktop.DBus", bus: true, iface: true, namespace: true},
		{name: ":1.42", bus: true},
		{name: ":1", bus: false},
		{name: "org", namespace: true, member: true},
		{name: "org.foo-bar", bus: true, namespace: true},
		{name: "org.2foo", bus: false},
		{name: ":1.2foo", bus: true},
		{name: "org..foo"},
		{name: ".org.foo"},
		{name: "org.foo."},
		{name: ""},
		{name: "Foo_Bar", member: true, namespace: true},
		{name: "2Foo"},
		{name: "a b"},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			got := []bool{validBusName(tt.name), validInterface(tt.name), validMember(tt.name), validNamespace(tt.name)}
			want := []bool{tt.bus, tt.iface, tt.member, tt.namespace}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("[bus iface member namespace] (-want +got):\n%s", diff)
			}
		})
	}
}
