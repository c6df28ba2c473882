package fakebus

import (
	"os"

	"golang.org/x/sys/unix"
)

// dataFD returns a file holding data as systemd's acquire_data_fd makes
// it for DumpByFileDescriptor (measured on 252): a memfd named "data-fd",
// open for reading and writing at offset 0, sealed against writing,
// growing, shrinking and further seals (F_GET_SEALS 0xf); /dev/null, read
// only, when data is empty.
func dataFD(data string) (*os.File, error) {
	if data == "" {
		return os.Open(os.DevNull)
	}
	fd, err := unix.MemfdCreate("data-fd", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, os.NewSyscallError("memfd_create", err)
	}
	f := os.NewFile(uintptr(fd), "memfd:data-fd")
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE); err != nil {
		f.Close()
		return nil, os.NewSyscallError("fcntl", err)
	}
	return f, nil
}
