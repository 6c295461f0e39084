/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure parsing of what host root writes to a GPU's `create` knob, and the instance name rules.
 * Builds in the kernel and in the user-space unit tests (see kmod/nvrm/nvrm_types.h for the
 * rules such a file follows): no allocation, no kernel-only calls.
 */
#ifndef QGPU_CREATE_PARSE_H
#define QGPU_CREATE_PARSE_H

#include "nvrm/nvrm_types.h"

/*
 * Instance names: [a-z0-9][a-z0-9_.-]{0,31}. They become a directory under /dev/qgpu/ and under
 * sysfs, so no '/', no leading '.' or '-', nothing a shell or a udev rule must quote.
 */
#define QGPU_NAME_MAX		32	/* characters, without the NUL */

/* core= is a percentage of the physical GPU's compute. */
#define QGPU_CORE_MIN		1
#define QGPU_CORE_MAX		100

/*
 * channels= bounds the channels and channel groups an instance holds at once. A GPU has 2048
 * channel ids a runlist (NV_CHRAM_CHANNEL__SIZE_1 in open-gpu-kernel-modules' gb202
 * dev_runlist.h; other chips' headers were not read), so a bound above 65536 bounds nothing.
 */
#define QGPU_CHANNELS_LIMIT	65536

/*
 * rm_objects= bounds the RM objects an instance's processes hold at once. The largest bound taken
 * is 2^24, 32 times the handles RM generates for one client (RS_UNIQUE_HANDLE_RANGE, 2^19): a
 * larger number is more likely a typo than a bound.
 */
#define QGPU_RM_OBJECTS_LIMIT	16777216

/*
 * mapped= bounds the GPU virtual address space an instance's RM mappings span, counted in whole
 * 2 MiB regions (QGPU_MAPPED_UNIT): a mapping, however small, holds a record of RM's and the
 * page tables of the regions it touches (DOC: GPU mappings in qgpu_mapped.c). The value is a
 * size, a multiple of 2 MiB; the largest taken is 2^28 regions (512 TiB).
 */
#define QGPU_MAPPED_UNIT_SHIFT	21
#define QGPU_MAPPED_UNIT	0x200000ULL	/* 1 << QGPU_MAPPED_UNIT_SHIFT */
#define QGPU_MAPPED_UNITS_LIMIT	268435456U	/* 2^28 */

/**
 * enum qgpu_class - scheduling class of an instance
 * @QGPU_CLASS_ONLINE: latency-sensitive; preempts offline instances (issue 6)
 * @QGPU_CLASS_OFFLINE: batch work; yields to online instances
 */
enum qgpu_class {
	QGPU_CLASS_ONLINE,
	QGPU_CLASS_OFFLINE,
};

/**
 * struct qgpu_create_req - a parsed `create` line
 * @name: the instance name, NUL-terminated
 * @mem: memory limit in bytes; 0 means unlimited ("max", the default)
 * @sysmem: system-memory limit in bytes (what RM allocates from the host for the instance's
 *	processes: DOC: system memory in qgpu_mem.c); 0 means unlimited ("max", the default)
 * @core: compute share in percent, QGPU_CORE_MIN..QGPU_CORE_MAX (default 100)
 * @cls: scheduling class (default online)
 * @refuse_managed: managed=refuse (default allow): the instance refuses UVM managed memory from
 *	its first moment, with no window before a write to its ``managed`` knob
 * @refuse_dmabuf: dmabuf=refuse (the default; dmabuf=allow clears it): the instance's processes
 *	cannot export video memory as dma-bufs (see DOC: dma-buf export in qgpu_dmabuf.c)
 * @channels: at most this many channels and channel groups held at once; 0 means unbounded
 *	("max", the default; see DOC: channels in qgpu_channels.c)
 * @rm_objects: at most this many RM objects held at once; 0 means unbounded ("max", the
 *	default; see DOC: RM objects in qgpu_objects.c)
 * @mapped: at most this many 2 MiB regions of GPU virtual address space spanned by its RM
 *	mappings at once; 0 means unbounded ("max", the default; DOC: GPU mappings in qgpu_mapped.c)
 */
struct qgpu_create_req {
	char name[QGPU_NAME_MAX + 1];
	u64 mem;
	u64 sysmem;
	u32 core;
	enum qgpu_class cls;
	bool refuse_managed;
	bool refuse_dmabuf;
	u32 channels;
	u32 rm_objects;
	u32 mapped;
};

/* The keys `create` takes after the name, as the GPU's read-only `create_keys` lists them. */
#define QGPU_CREATE_KEYS	"mem core class managed dmabuf channels rm_objects sysmem mapped"

bool qgpu_name_valid(const char *name, size_t len);
int qgpu_parse_size(const char *s, size_t len, u64 *out);
int qgpu_parse_channels(const char *s, size_t len, u32 *out);
int qgpu_parse_rm_objects(const char *s, size_t len, u32 *out);
int qgpu_parse_mapped(const char *s, size_t len, u32 *units);
int qgpu_create_parse(const char *buf, size_t len, struct qgpu_create_req *req);
const char *qgpu_class_name(enum qgpu_class cls);

#endif /* QGPU_CREATE_PARSE_H */
