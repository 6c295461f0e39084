"""I/O with the outside world: sysfs, /dev, and later NVML, netlink, udev and CDI files.

Nothing above this layer opens a kernel file itself, so tests can point every
backend at a temporary tree and the refusal and rollback rules live in one place.
"""
