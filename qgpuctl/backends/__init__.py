"""I/O with the outside world: sysfs (``schema`` names it all), /dev, NVML, netlink, udev, files.

Nothing above this layer opens a kernel file itself, so tests can point every
backend at a temporary tree and the refusal and rollback rules live in one place.
"""
