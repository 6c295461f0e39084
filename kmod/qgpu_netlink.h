/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu's generic netlink event stream: the interface `qgpuctl events` and other listeners use.
 * These numbers are ABI: append, never renumber (docs/kernel-interface.md).
 */
#ifndef QGPU_NETLINK_H
#define QGPU_NETLINK_H

#include <linux/types.h>

#define QGPU_GENL_NAME		"qgpu"
#define QGPU_GENL_VERSION	1
#define QGPU_GENL_MCGRP_EVENTS	"events"

enum qgpu_genl_cmd {
	QGPU_CMD_UNSPEC,
	QGPU_CMD_EVENT = 1,	/* multicast on "events" */
};

enum qgpu_genl_attr {
	QGPU_ATTR_UNSPEC,
	QGPU_ATTR_EVENT = 1,		/* string: oom, preempt, instance_create, ... */
	QGPU_ATTR_GPU = 2,		/* u32: the GPU's index (backend minor) */
	QGPU_ATTR_INSTANCE = 3,		/* string: instance name */
	QGPU_ATTR_PID = 4,		/* u32: process, in the initial pid namespace */
	QGPU_ATTR_SIZE = 5,		/* u64: bytes (oom: the refused allocation) */
	QGPU_ATTR_TIMESTAMP_NS = 6,	/* u64: CLOCK_MONOTONIC */
	QGPU_ATTR_DETAIL = 7,		/* string: free text for humans */
	__QGPU_ATTR_MAX,
};

#define QGPU_ATTR_MAX (__QGPU_ATTR_MAX - 1)

/**
 * struct qgpu_event - one event for qgpu_event_emit()
 * @event: its kind (QGPU_ATTR_EVENT)
 * @gpu: the GPU index, or -1 when none applies
 * @instance: the instance name, or NULL
 * @pid: the process (initial pid namespace), or 0
 * @size: a size in bytes, or 0
 * @detail: free text, or NULL
 */
struct qgpu_event {
	const char *event;
	int gpu;
	const char *instance;
	pid_t pid;
	u64 size;
	const char *detail;
};

int qgpu_netlink_init(void);
void qgpu_netlink_exit(void);
void qgpu_event_emit(const struct qgpu_event *ev);

#endif /* QGPU_NETLINK_H */
