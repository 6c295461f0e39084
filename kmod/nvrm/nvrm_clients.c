// SPDX-License-Identifier: GPL-2.0
/*
 * Pure decoding of the RM client handles that controls and allocations name besides the caller's
 * own (see nvrm_clients.h). Builds unchanged in the kernel and in user space.
 *
 * The list is session 18's audit of NVIDIA's open-gpu-kernel-modules (595.45.04, compared with
 * 580.142): every NON_PRIVILEGED control, and every class users may allocate, whose parameters
 * carry another client's handle that kernel RM does not check against the caller (it looks the
 * client up by handle; the GSP-routed controls go to the firmware as they are). Privileged,
 * kernel-only and internal ones are left out: a tenant cannot issue them. Controls RM checks
 * itself (NV0000 IDLE_CHANNELS, CLIENT_SHARE_OBJECT, CLIENT_GET_ACCESS_RIGHTS, DMA_INVALIDATE_TLB)
 * are left out too, as is FIFO_DISABLE_CHANNELS, which qgpu_disable.c handles. Offsets and sizes
 * are in nvrm_abi.h, section 8 and 6.
 */
#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_clients.h"

#define ONE(sz, o)		{ .size = (sz), .off = (o), .count_off = NVRM_CLIENTS_ONE, \
				  .max = 1, .off2 = NVRM_CLIENTS_NONE }
#define LIST(sz, o, st, c, m)	{ .size = (sz), .off = (o), .stride = (st), .count_off = (c), \
				  .max = (m), .off2 = NVRM_CLIENTS_NONE }

static const struct {
	u32 cmd;
	struct nvrm_client_fields f;
} nvrm_control_clients[] = {
	{ NVRM_CTRL_CMD_FIFO_DISABLE_CHANNELS_FOR_KEY_ROTATION, LIST(520, 4, 4, 0, 64) },
	{ NVRM_CTRL_CMD_FIFO_ROTATE_KEYS, LIST(520, 4, 4, 0, 64) },
	{ NVRM_CTRL_CMD_FIFO_GET_CHANNEL_GROUP_UNIQUE_ID_INFO, ONE(1552, 0) },
	{ NVRM_CTRL_CMD_FIFO_QUERY_CHANNEL_UNIQUE_ID, LIST(1540, 0, 4, 1024, 128) },
	{ NVRM_CTRL_CMD_FIFO_BIND_ENGINES, LIST(132, 4, 8, 0, 16) },
	{ NVRM_CTRL_CMD_GPU_EXEC_REG_OPS, ONE(48, 0) },
	{ NVRM_CTRL_CMD_GPU_MIGRATABLE_OPS, ONE(1832, 0) },
	{ NVRM_CTRL_CMD_GR_CTXSW_ZCULL_MODE, ONE(16, 4) },
	{ NVRM_CTRL_CMD_GR_CTXSW_ZCULL_BIND, ONE(24, 0) },
	{ NVRM_CTRL_CMD_GR_CTXSW_PM_BIND, ONE(40, 0) },
	{ NVRM_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND,
	  { .size = NVRM_GR_CTXSW_PREEMPTION_BIND_SIZE_V565,
	    .since = NVRM_GR_CTXSW_PREEMPTION_BIND_V565_SINCE,
	    .size_before = NVRM_GR_CTXSW_PREEMPTION_BIND_SIZE_V525, .off = 4,
	    .count_off = NVRM_CLIENTS_ONE, .max = 1, .off2 = NVRM_CLIENTS_NONE } },
	{ NVRM_CTRL_CMD_GR_CTXSW_SETUP_BIND, ONE(16, 0) },
	{ NVRM_CTRL_CMD_NV208F_FIFO_GET_CHANNEL_STATE, ONE(16, 4) },
	{ NVRM_CTRL_CMD_NV503C_REGISTER_PID, ONE(4, 0) },
};

static const struct {
	u32 hclass;
	struct nvrm_client_fields f;
} nvrm_alloc_clients[] = {
	/* hClientShare@4 (another client's VA space), hTargetClient@8 (vGPU plugin contexts) */
	{ NVRM_CLASS_NV01_DEVICE_0, { .size = 56, .off = 4, .count_off = NVRM_CLIENTS_ONE,
				      .max = 1, .off2 = 8 } },
	/* hParentClient@0: an event on another client's object */
	{ NVRM_CLASS_NV01_EVENT, ONE(24, 0) },
	{ NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK, ONE(24, 0) },
	{ NVRM_CLASS_NV01_EVENT_OS_EVENT, ONE(24, 0) },
	{ NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK_EX, ONE(24, 0) },
	{ NVRM_CLASS_GT200_DEBUGGER, ONE(12, 4) },		/* hAppClient */
	{ NVRM_CLASS_MAXWELL_PROFILER_DEVICE, ONE(8, 0) },	/* hClientTarget */
	{ NVRM_CLASS_NV01_MEMORY_FLA, ONE(56, 48) },		/* hExportClient */
};

/**
 * nvrm_control_client_fields() - where a control's parameters name clients
 * @cmd: the control
 *
 * Return: the fields, or NULL when @cmd names no client but the caller's (as far as the audit
 * in this file's header goes).
 */
const struct nvrm_client_fields *nvrm_control_client_fields(u32 cmd)
{
	unsigned int i;

	for (i = 0; i < NVRM_ARRAY_SIZE(nvrm_control_clients); i++)
		if (nvrm_control_clients[i].cmd == cmd)
			return &nvrm_control_clients[i].f;
	return NULL;
}

/**
 * nvrm_clients_size() - the size of a parameter struct that names clients, for a driver branch
 * @f: where it names them
 * @major: the driver's branch (525, 580, ...)
 *
 * Return: the size RM takes there.
 */
u32 nvrm_clients_size(const struct nvrm_client_fields *f, u32 major)
{
	return f->since && major < f->since ? f->size_before : f->size;
}

/**
 * nvrm_alloc_client_fields() - where a class's alloc parameters name clients
 * @hclass: the class
 *
 * Return: the fields, or NULL.
 */
const struct nvrm_client_fields *nvrm_alloc_client_fields(u32 hclass)
{
	unsigned int i;

	for (i = 0; i < NVRM_ARRAY_SIZE(nvrm_alloc_clients); i++)
		if (nvrm_alloc_clients[i].hclass == hclass)
			return &nvrm_alloc_clients[i].f;
	return NULL;
}

/**
 * nvrm_control_refused_for_tenants() - a control no tenant may issue through qgpu
 * @cmd: the control
 *
 * NV5080 DEFERRED_API(_V2) carry a bundle of commands, each with its own client fields, that RM
 * runs later (V2: the kernel part registers another client's memory before any check). No CUDA
 * or nvidia-smi trace uses them.
 *
 * Return: true for those.
 */
bool nvrm_control_refused_for_tenants(u32 cmd)
{
	return cmd == NVRM_CTRL_CMD_NV5080_DEFERRED_API ||
	       cmd == NVRM_CTRL_CMD_NV5080_DEFERRED_API_V2;
}

/**
 * nvrm_clients_span() - how many leading bytes of the parameters hold every client field
 * @f: where they are
 *
 * What a checker has to read, and to have RM read from its copy: the rest of the struct decides
 * nothing about clients.
 *
 * Return: the span, at most @f->size.
 */
u32 nvrm_clients_span(const struct nvrm_client_fields *f)
{
	u32 end = f->off + (f->max - 1) * f->stride + sizeof(u32);

	if (f->count_off != NVRM_CLIENTS_ONE && f->count_off + sizeof(u32) > end)
		end = f->count_off + sizeof(u32);
	if (f->off2 != NVRM_CLIENTS_NONE && f->off2 + sizeof(u32) > end)
		end = f->off2 + sizeof(u32);
	return end < f->size ? end : f->size;
}

static u32 nvrm_clients_get(const void *params, u32 off)
{
	u32 v;

	memcpy(&v, (const u8 *)params + off, sizeof(v));
	return v;
}

/**
 * nvrm_clients_named() - the client handles @params names, zeros left out
 * @f: where they are (nvrm_*_client_fields())
 * @params: the parameters, at least nvrm_clients_span(@f) bytes
 * @out: the handles
 *
 * A list names its first length entries, at most @f->max (RM refuses a longer one, or reads no
 * more). Handle 0 names no client.
 *
 * Return: how many handles are in @out.
 */
u32 nvrm_clients_named(const struct nvrm_client_fields *f, const void *params,
		       u32 out[NVRM_CLIENTS_MAX])
{
	u32 n = 1, i, h, count = 0;

	if (f->count_off != NVRM_CLIENTS_ONE) {
		n = nvrm_clients_get(params, f->count_off);
		if (n > f->max)
			n = f->max;
	}
	for (i = 0; i < n && count < NVRM_CLIENTS_MAX; i++) {
		h = nvrm_clients_get(params, f->off + i * f->stride);
		if (h)
			out[count++] = h;
	}
	if (f->off2 != NVRM_CLIENTS_NONE && count < NVRM_CLIENTS_MAX) {
		h = nvrm_clients_get(params, f->off2);
		if (h)
			out[count++] = h;
	}
	return count;
}
