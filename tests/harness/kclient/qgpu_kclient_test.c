// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu_kclient_test: a test-only module that uses nvsim's kernel-client interface the way qgpu
 * uses the real driver's (symbol_get of the *_get_rm_ops entry point, the version handshake,
 * op() with kernel pointers). At load it:
 *   1. calls nvsim_get_rm_ops() with a wrong version (must fail and hand back nvsim's version),
 *      then with that version (must succeed);
 *   2. allocates a kernel client with a device and subdevice on GPU 0;
 *   3. duplicates the user object (hclient, hobject) given as parameters under its device, and
 *      tries the same with REJECT_KERNEL_DUP_PRIVILEGE (refused: the object is not its process's);
 *   4. optionally duplicates (hclient, hdevice) (refused: devices cannot be copied);
 *   5. issues FB_GET_INFO_V2 (HEAP_FREE) on its own subdevice;
 *   6. frees its client, unless keep=1: then the client lives until the module is unloaded.
 * Each step's RM status is reported in the read-only parameter "result" as "name=0xSTATUS" pairs.
 *
 * With keep=1 and a user channel group (TSG) as hobject, the kernel client then acts on its dup the
 * way qgpu's scheduler will: writing "schedule 0", "schedule 1", "timeslice US" or "get_timeslice"
 * to the parameter "tsg_op" issues NVA06C GPFIFO_SCHEDULE, SET_TIMESLICE or GET_TIMESLICE on the
 * dup, and the parameter "op_result" reads "status=0xSTATUS timeslice_us=N" for the last one.
 * Never built into anything that ships.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nvrm/nvrm_kapi.h"

static uint hclient;
module_param(hclient, uint, 0444);
MODULE_PARM_DESC(hclient, "User client whose object to duplicate");

static uint hobject;
module_param(hobject, uint, 0444);
MODULE_PARM_DESC(hobject, "User object to duplicate (memory, TSG, ...)");

static uint hdevice;
module_param(hdevice, uint, 0444);
MODULE_PARM_DESC(hdevice, "User device to try to duplicate (0: skip)");

static bool keep;
module_param(keep, bool, 0444);
MODULE_PARM_DESC(keep, "Keep the kernel client (and its dup) until unload");

static char result[512];
module_param_string(result, result, sizeof(result), 0444);
MODULE_PARM_DESC(result, "What each step returned");

static char op_result[64];
module_param_string(op_result, op_result, sizeof(op_result), 0444);
MODULE_PARM_DESC(op_result, "What the last tsg_op returned");

static nvrm_kapi_get_rm_ops_fn get_rm_ops;
static struct nvrm_kapi_rm_ops rm_ops;
static struct nvrm_kapi_stack *stack;
static u32 kclient;
static u32 hdup;		/* the dup of hobject, while kclient lives */
static unsigned int major;	/* the driver's major version */
static bool use_nvos64;

static void report(const char *name, u32 value)
{
	size_t len = strlen(result);

	snprintf(result + len, sizeof(result) - len, "%s%s=0x%x", len ? " " : "", name, value);
}

static u32 op_alloc(u32 hroot, u32 hparent, u32 hclass, void *params, u32 *hnew)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_ALLOC };

	if (use_nvos64) {
		ops.params.alloc.hroot = hroot;
		ops.params.alloc.hobject_parent = hparent;
		ops.params.alloc.hclass = hclass;
		ops.params.alloc.palloc_parms = (uintptr_t)params;
		ops.params.alloc.status = ~0u;
		rm_ops.op(stack, &ops);
		*hnew = ops.params.alloc.hobject_new;
		return ops.params.alloc.status;
	}
	ops.params.alloc21.hroot = hroot;
	ops.params.alloc21.hobject_parent = hparent;
	ops.params.alloc21.hclass = hclass;
	ops.params.alloc21.palloc_parms = (uintptr_t)params;
	ops.params.alloc21.status = ~0u;
	rm_ops.op(stack, &ops);
	*hnew = ops.params.alloc21.hobject_new;
	return ops.params.alloc21.status;
}

static u32 op_free(u32 hroot, u32 hobj)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_FREE };

	ops.params.free.hroot = hroot;
	ops.params.free.hobject_old = hobj;
	ops.params.free.status = ~0u;
	rm_ops.op(stack, &ops);
	return ops.params.free.status;
}

static u32 op_dup(u32 hparent, u32 hclient_src, u32 hobject_src, u32 flags, u32 *hnew)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_DUP_OBJECT };

	ops.params.dup_object.hclient = kclient;
	ops.params.dup_object.hparent = hparent;
	ops.params.dup_object.hclient_src = hclient_src;
	ops.params.dup_object.hobject_src = hobject_src;
	ops.params.dup_object.flags = flags;
	ops.params.dup_object.status = ~0u;
	rm_ops.op(stack, &ops);
	*hnew = ops.params.dup_object.hobject;
	return ops.params.dup_object.status;
}

/* FB_GET_INFO_V2's params size for the driver's version (kmod/nvrm/nvrm_abi.h). */
static u32 fb_info_v2_size(unsigned int major)
{
	if (major >= 580)
		return NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V580);
	if (major >= 560)
		return NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V560);
	if (major >= 545)
		return NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V545);
	return NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V525);
}

static u32 op_heap_free_kb(u32 hsub, unsigned int major, u32 *kb)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_CONTROL };
	struct nvrm_fb_get_info_v2 *p;
	u32 size = fb_info_v2_size(major);
	u32 status;

	p = kzalloc(size, GFP_KERNEL);
	if (!p)
		return NVRM_ERR_NO_MEMORY;
	p->fb_info_list_size = 1;
	p->fb_info_list[0].index = NVRM_FB_INFO_INDEX_HEAP_FREE;
	ops.params.control.hclient = kclient;
	ops.params.control.hobject = hsub;
	ops.params.control.cmd = NVRM_CTRL_CMD_FB_GET_INFO_V2;
	ops.params.control.params = (uintptr_t)p;
	ops.params.control.params_size = size;
	ops.params.control.status = ~0u;
	rm_ops.op(stack, &ops);
	status = ops.params.control.status;
	*kb = p->fb_info_list[0].data;
	kfree(p);
	return status;
}

static u32 op_control(u32 hobj, u32 cmd, void *params, u32 size)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_CONTROL };

	ops.params.control.hclient = kclient;
	ops.params.control.hobject = hobj;
	ops.params.control.cmd = cmd;
	ops.params.control.params = (uintptr_t)params;
	ops.params.control.params_size = size;
	ops.params.control.status = ~0u;
	rm_ops.op(stack, &ops);
	return ops.params.control.status;
}

/*
 * tsg_op: one NVA06C control on the dup. Parameter writes are serialised by the module's parameter
 * lock, and only ever happen between init and exit, so kclient and hdup are stable here.
 */
static int tsg_op_set(const char *val, const struct kernel_param *kp)
{
	struct nvrm_gpfifo_schedule sched = { 0 };
	struct nvrm_tsg_timeslice ts = { 0 };
	char word[16];
	u64 arg = 0;
	u32 status;
	int n;

	if (!kclient || !hdup)
		return -ENODEV;
	n = sscanf(val, "%15s %llu", word, &arg);
	if (n < 1)
		return -EINVAL;
	if (!strcmp(word, "schedule") && n == 2) {
		sched.enable = !!arg;
		status = op_control(hdup, NVRM_CTRL_CMD_NVA06C_GPFIFO_SCHEDULE, &sched,
				    major >= 575 ? NVRM_GPFIFO_SCHEDULE_SIZE_V575 :
						   NVRM_GPFIFO_SCHEDULE_SIZE_V525);
	} else if (!strcmp(word, "timeslice") && n == 2) {
		ts.timeslice_us = arg;
		status = op_control(hdup, NVRM_CTRL_CMD_NVA06C_SET_TIMESLICE, &ts, sizeof(ts));
	} else if (!strcmp(word, "get_timeslice")) {
		status = op_control(hdup, NVRM_CTRL_CMD_NVA06C_GET_TIMESLICE, &ts, sizeof(ts));
	} else {
		return -EINVAL;
	}
	snprintf(op_result, sizeof(op_result), "status=0x%x timeslice_us=%llu", status,
		 ts.timeslice_us);
	return 0;
}

static const struct kernel_param_ops tsg_op_ops = {
	.set = tsg_op_set,
};
module_param_cb(tsg_op, &tsg_op_ops, NULL, 0200);
MODULE_PARM_DESC(tsg_op, "schedule 0|1, timeslice US or get_timeslice on the dup of hobject");

static int __init qgpu_kclient_test_init(void)
{
	struct nvrm_nv0080_alloc_params dev_params = { .device_id = 0 };
	struct nvrm_nv2080_alloc_params sub_params = { 0 };
	u32 hdev = 0, hsub = 0, hbad = 0, kb = 0, status;
	char version[NVRM_RM_API_VERSION_STRING_LENGTH];

	get_rm_ops = symbol_get(nvsim_get_rm_ops);
	if (!get_rm_ops)
		return -ENOENT;

	rm_ops.version_string = "1.0.0";
	status = get_rm_ops(&rm_ops);
	report("bad_version", status);
	report("version_returned", rm_ops.version_string && strcmp(rm_ops.version_string, "1.0.0"));
	if (!rm_ops.version_string || rm_ops.op)
		goto err_put;
	strscpy(version, rm_ops.version_string, sizeof(version));
	if (sscanf(version, "%u.", &major) != 1)
		goto err_put;
	use_nvos64 = major >= 575;

	memset(&rm_ops, 0, sizeof(rm_ops));
	rm_ops.version_string = version;
	status = get_rm_ops(&rm_ops);
	report("handshake", status);
	if (status || !rm_ops.op || rm_ops.alloc_stack(&stack))
		goto err_put;

	report("client", op_alloc(0, 0, NVRM_CLASS_NV01_ROOT_CLIENT, NULL, &kclient));
	if (!kclient)
		goto err_free_stack;
	report("device", op_alloc(kclient, kclient, NVRM_CLASS_NV01_DEVICE_0, &dev_params, &hdev));
	report("subdevice", op_alloc(kclient, hdev, NVRM_CLASS_NV20_SUBDEVICE_0, &sub_params,
				     &hsub));
	report("dup", op_dup(hdev, hclient, hobject, NVRM_DUP_FLAGS_NONE, &hdup));
	report("dup_handle", hdup);
	report("dup_rejected", op_dup(hdev, hclient, hobject,
				      NVRM_DUP_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE, &hbad));
	if (hdevice)
		report("dup_device", op_dup(kclient, hclient, hdevice, NVRM_DUP_FLAGS_NONE, &hbad));
	report("fb_info", op_heap_free_kb(hsub, major, &kb));
	report("heap_free_kb", kb);
	if (!keep) {
		report("free", op_free(kclient, kclient));
		kclient = 0;
		hdup = 0;
	}
	return 0;

err_free_stack:
	rm_ops.free_stack(stack);
err_put:
	symbol_put(nvsim_get_rm_ops);
	pr_info("%s\n", result);
	return -EINVAL;
}

static void __exit qgpu_kclient_test_exit(void)
{
	if (kclient)
		op_free(kclient, kclient);
	rm_ops.free_stack(stack);
	symbol_put(nvsim_get_rm_ops);
}

module_init(qgpu_kclient_test_init);
module_exit(qgpu_kclient_test_exit);

MODULE_DESCRIPTION("qgpu test: nvsim's kernel-client interface");
MODULE_LICENSE("GPL");
