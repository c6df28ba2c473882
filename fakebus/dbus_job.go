package fakebus

// The org.freedesktop.systemd1.Job interface (systemd's
// src/core/dbus-job.c): the methods of a job's object, each answered as
// the Manager method it stands for; its properties are in
// dbus_properties.go, the job model in job.go.

var jobVtable = newRoutedVtable(jobIface, map[string]string{
	"Cancel": "CancelJob", "GetAfter": "GetJobAfter", "GetBefore": "GetJobBefore",
}, nil, []vmethod{
	{"Cancel", "", "", "", "", nil},
	{"GetAfter", "", "a(usssoo)", "", "jobs", nil},
	{"GetBefore", "", "a(usssoo)", "", "jobs", nil},
}, nil)
