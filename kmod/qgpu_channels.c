// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the channels and channel groups an instance holds, counted and bounded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kobject.h>

#include "qgpu_channels.h"
#include "qgpu_internal.h"
#include "qgpu_mem.h"

/**
 * DOC: channels
 *
 * A channel takes one of the GPU's channel ids, 2048 a runlist for every process of every instance
 * together (NV_CHRAM_CHANNEL__SIZE_1 in the gb202 dev_runlist.h of open-gpu-kernel-modules), and
 * a channel group one of its group ids. An instance without a bound could take every id, and
 * any other instance's next CUDA context would fail. (The video memory RM takes for each one is
 * charged to ``mem_max``: DOC: context buffers in qgpu_ctxbuf.c.)
 *
 * ``channels_max`` (0644, ``max`` or 1..65536; ``channels=`` at creation, default ``max``)
 * bounds the channels and channel groups the instance holds at once, one count for both: a CUDA
 * context holds 4 groups and 20 channels (traced on an H200, driver 580), 24 in all. An RM_ALLOC
 * of a channel or channel group past it is not forwarded: its status is NV_ERR_NO_FREE_FIFOS,
 * what RM answers when its channel ids run out (kfifoChidMgrAllocChid()), the netlink event
 * ``refused`` names the process, and the kernel log says so (rate-limited). ``channels`` (0444)
 * is the count. Lowering ``channels_max`` below it is refused with -EBUSY, as ``mem_max`` is.
 *
 * The count follows qgpu's mirror of the tenant's objects (qgpu_rmtrack.c): it goes up before
 * the call is forwarded, down when RM refused it, and down when the mirror drops the object's
 * last handle, which it does once RM has freed it (the object, an ancestor, the client, or the
 * file at process exit). RM keeps a channel or group, and its id, while a copy in another client
 * of the instance (RM_DUP_OBJECT) or an export fd still refers to it, so the count rides on the
 * charge the object holds for its own memory (DOC: context buffers in qgpu_ctxbuf.c), which
 * those share; copies of one group count once. Sealed, RM allocates the class qgpu counted (DOC:
 * sealed forwarding); with ``seal=0`` a tenant that rewrites its class under the call is counted
 * for what qgpu read. A copy made while another file makes objects in the source's client gets a
 * count of its own, as it gets a charge of its own (qgpu_ctxbuf_own()).
 */

/**
 * qgpu_is_channel_class() - is @hclass a GPFIFO channel (one channel id)?
 * @hclass: an RM class
 *
 * Return: true for the channel classes of Volta to Blackwell.
 */
bool qgpu_is_channel_class(u32 hclass)
{
	switch (hclass) {
	case NVRM_CLASS_VOLTA_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_TURING_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_AMPERE_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_BLACKWELL_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_BLACKWELL_CHANNEL_GPFIFO_B:
		return true;
	default:
		return false;
	}
}

/**
 * qgpu_channels_counted() - does an RM_ALLOC of @hclass count against ``channels_max``?
 * @hclass: the class
 *
 * Return: true for channels and channel groups.
 */
bool qgpu_channels_counted(u32 hclass)
{
	return qgpu_is_channel_class(hclass) || hclass == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A;
}

/**
 * qgpu_channels_reserve() - count one more channel or channel group for @inst, if it fits
 * @inst: the instance
 *
 * On refusal the operator is told (netlink ``refused``, the log). The caller gives the count back
 * with qgpu_channels_put() when RM made nothing, else the mirror does when the object goes.
 *
 * Return: true if it fits under ``channels_max``.
 */
bool qgpu_channels_reserve(struct qgpu_instance *inst)
{
	if (qgpu_bound_reserve(&inst->channels, 1))
		return true;
	qgpu_mem_call_refused(inst, "a channel or channel group past channels_max");
	return false;
}

/**
 * qgpu_channels_force() - count one more channel or channel group for @inst, whatever
 * ``channels_max`` says (one the driver already holds)
 * @inst: the instance
 */
void qgpu_channels_force(struct qgpu_instance *inst)
{
	qgpu_bound_force(&inst->channels, 1);
}

/**
 * qgpu_channels_put() - a channel or channel group of @inst is gone, or was never made
 * @inst: the instance
 */
void qgpu_channels_put(struct qgpu_instance *inst)
{
	qgpu_bound_put(&inst->channels, 1);
}

static ssize_t channels_max_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_bound_max_show(&qgpu_instance_of(kobj)->channels, buf);
}

static ssize_t channels_max_store(struct kobject *kobj, struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	int ret;
	u32 max;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (qgpu_parse_channels(buf, count, &max))
		return -EINVAL;
	ret = qgpu_bound_set_max(&qgpu_instance_of(kobj)->channels, max);
	return ret ?: count;
}

static ssize_t channels_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", qgpu_bound_count(&qgpu_instance_of(kobj)->channels));
}

static struct kobj_attribute qgpu_attr_channels_max = __ATTR_RW(channels_max);
static struct kobj_attribute qgpu_attr_channels = __ATTR_RO(channels);

static struct attribute *qgpu_channels_instance_attrs[] = {
	&qgpu_attr_channels_max.attr,
	&qgpu_attr_channels.attr,
	NULL,
};

const struct attribute_group qgpu_channels_instance_group = {
	.attrs = qgpu_channels_instance_attrs,
};
