// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: vGPU instances: creation and removal, their sysfs directory and device nodes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/xarray.h>

#include "qgpu_internal.h"
#include "qgpu_mapped.h"
#include "qgpu_netlink.h"
#include "qgpu_sched.h"

/**
 * DOC: sysfs of an instance
 *
 * /sys/class/qgpu/gpu<N>/instances/<name>/:
 *
 * - ``mem_max`` (0644), ``mem_current``, ``mem_peak``, ``events`` (0444), ``managed`` and
 *   ``dmabuf`` (0644): the memory limit and its accounting (qgpu_mem.c, DOC: memory limits;
 *   DOC: dma-buf export in qgpu_dmabuf.c).
 * - ``sysmem_max`` (0644), ``sysmem_current``, ``sysmem_peak`` (0444): the limit on the system
 *   memory RM allocates for its processes, and its accounting (DOC: system memory in
 *   qgpu_mem.c). Refusals count in ``events``.
 * - ``channels_max`` (0644), ``channels`` (0444): the bound on its channels and channel groups
 *   and their count (DOC: channels in qgpu_channels.c).
 * - ``rm_objects_max`` (0644), ``rm_objects`` (0444): the bound on the RM objects its processes
 *   hold and their count (DOC: RM objects in qgpu_objects.c).
 * - ``mapped_max`` (0644), ``mapped_current`` (0444): the bound on the GPU virtual address space
 *   its RM mappings span, and what they span (DOC: GPU mappings in qgpu_mapped.c).
 * - ``core`` (0644), ``class`` (0644), ``gpu_time_ns``, ``throttled_ns``, ``preemptions``,
 *   ``share`` (0444): compute scheduling (DOC: compute scheduling in qgpu_sched.c).
 * - ``processes`` (0444): one line ``PID COMM`` per process (host pid namespace) that has one of
 *   the instance's nodes open.
 * - ``remove`` (0200): write ``1`` to remove the instance. While any process has one of its
 *   nodes open this fails with -EBUSY. Write ``force`` to remove it anyway: its nodes and sysfs
 *   directory go at once, and every later call on the files still open fails with -ENODEV
 *   (poll reports EPOLLERR); their backend files, and whatever the backend driver holds for
 *   them, are released when those processes close them or exit. Mappings made before keep
 *   their backend file until unmapped.
 *
 * Device nodes: /dev/qgpu/<name>/{nvidiactl,nvidia0,nvidia-uvm}, mode 0660 root, on a dynamic
 * major (never 195: the NVIDIA driver trusts any 195:* file to be its own), minors
 * slot * 3 + {0, 1, 2}. Their kernel names are qgpu!<name>!<node> (udev/70-qgpu.rules).
 */

static DEFINE_IDA(qgpu_slots);
/* slot -> live instance, for open(); changed under qgpu_lock. */
static DEFINE_XARRAY(qgpu_by_slot);

static const char *const qgpu_node_names[QGPU_NODES] = {
	[QGPU_NODE_CTL] = "nvidiactl",
	[QGPU_NODE_GPU] = "nvidia0",
	[QGPU_NODE_UVM] = "nvidia-uvm",
};

/**
 * qgpu_node_name() - the file name of an instance node
 * @node: which node
 *
 * Return: "nvidiactl", "nvidia0" or "nvidia-uvm".
 */
const char *qgpu_node_name(enum qgpu_node node)
{
	return node < QGPU_NODES ? qgpu_node_names[node] : "?";
}

/* Whether an earlier file of @inst than @qf belongs to the same process. */
static bool qgpu_tgid_seen(struct qgpu_instance *inst, struct qgpu_file *qf)
{
	struct qgpu_file *o;

	lockdep_assert_held(&qgpu_lock);
	list_for_each_entry(o, &inst->files, inst_link) {
		if (o == qf)
			return false;
		if (o->tgid == qf->tgid)
			return true;
	}
	return false;
}

static ssize_t processes_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct qgpu_instance *inst = qgpu_instance_of(kobj);
	struct qgpu_file *qf;
	int len = 0;

	mutex_lock(&qgpu_lock);
	list_for_each_entry(qf, &inst->files, inst_link)
		if (!qgpu_tgid_seen(inst, qf))
			len += sysfs_emit_at(buf, len, "%d %s\n", qf->tgid, qf->comm);
	mutex_unlock(&qgpu_lock);
	return len;
}

static struct kobj_attribute qgpu_attr_processes = __ATTR_RO(processes);

static void qgpu_instance_teardown(struct qgpu_instance *inst);

/* Tell netlink listeners about @inst (its limit travels as the event's size). */
static void qgpu_instance_event(struct qgpu_instance *inst, const char *what, const char *detail)
{
	struct qgpu_event ev = {
		.event = what,
		.gpu = inst->gpu->index,
		.instance = inst->name,
		.size = inst->settings.mem,
		.detail = detail,
	};

	qgpu_event_emit(&ev);
}

static ssize_t remove_store(struct kobject *kobj, struct kobj_attribute *attr, const char *buf,
			    size_t count)
{
	struct qgpu_instance *inst = qgpu_instance_of(kobj);
	bool force;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (sysfs_streq(buf, "1"))
		force = false;
	else if (sysfs_streq(buf, "force"))
		force = true;
	else
		return -EINVAL;

	mutex_lock(&qgpu_lock);
	if (inst->state != QGPU_INST_LIVE) {
		mutex_unlock(&qgpu_lock);
		return -ENODEV;
	}
	if (inst->open_count && !force) {
		mutex_unlock(&qgpu_lock);
		return -EBUSY;
	}
	WRITE_ONCE(inst->state, QGPU_INST_REMOVED);
	xa_erase(&qgpu_by_slot, inst->slot);
	mutex_unlock(&qgpu_lock);

	if (inst->open_count)
		pr_info("instance %s removed by force with its nodes open\n", inst->name);
	qgpu_instance_event(inst, "instance_remove",
			    inst->open_count ? "forced, nodes open" : NULL);
	/* This file's own removal must not wait for this very write to finish. */
	sysfs_remove_file_self(kobj, &attr->attr);
	qgpu_instance_teardown(inst);
	return count;
}

static struct kobj_attribute qgpu_attr_remove = __ATTR_WO(remove);

static struct attribute *qgpu_instance_attrs[] = {
	&qgpu_attr_processes.attr,
	&qgpu_attr_remove.attr,
	NULL,
};

static const struct attribute_group qgpu_instance_group = {
	.attrs = qgpu_instance_attrs,
};

/* The memory knobs are qgpu_mem.c's, the channel ones qgpu_channels.c's, the RM object ones
 * qgpu_objects.c's, the compute ones qgpu_sched.c's.
 */
static const struct attribute_group *qgpu_instance_groups[] = {
	&qgpu_instance_group,
	&qgpu_mem_instance_group,
	&qgpu_channels_instance_group,
	&qgpu_objects_instance_group,
	&qgpu_mapped_instance_group,
	&qgpu_sched_inst_group,
	NULL,
};

static void qgpu_instance_release(struct kobject *kobj)
{
	qgpu_mem_inst_destroy(qgpu_instance_of(kobj));
	qgpu_sched_inst_free(qgpu_instance_of(kobj));
	kfree(qgpu_instance_of(kobj));
}

static const struct kobj_type qgpu_instance_ktype = {
	.release	= qgpu_instance_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= qgpu_instance_groups,
};

static bool qgpu_name_taken(const char *name)
{
	struct qgpu_instance *inst;
	unsigned int i;

	lockdep_assert_held(&qgpu_lock);
	for (i = 0; i < qgpu_num_gpus; i++)
		list_for_each_entry(inst, &qgpu_gpus[i]->instances, gpu_link)
			if (!strcmp(inst->name, name))
				return true;
	return false;
}

/**
 * qgpu_available_instances() - how many more instances a GPU accepts
 * @gpu: the GPU
 *
 * Return: the smaller of what is left of its own limit and of the minor space.
 */
unsigned int qgpu_available_instances(const struct qgpu_gpu *gpu)
{
	unsigned int used = 0, i, left;

	mutex_lock(&qgpu_lock);
	for (i = 0; i < qgpu_num_gpus; i++)
		used += qgpu_gpus[i]->num_instances;
	left = QGPU_MAX_INSTANCES_PER_GPU - gpu->num_instances;
	mutex_unlock(&qgpu_lock);
	return min(left, QGPU_MAX_INSTANCES - used);
}

/* Remove the nodes, then the sysfs directory, then give back the slot and the module. */
static void qgpu_instance_teardown(struct qgpu_instance *inst)
{
	unsigned int k;

	for (k = 0; k < QGPU_NODES; k++)
		if (!IS_ERR_OR_NULL(inst->nodes[k]))
			device_unregister(inst->nodes[k]);
	qgpu_sched_inst_remove(inst);
	mutex_lock(&qgpu_lock);
	list_del(&inst->gpu_link);
	inst->gpu->num_instances--;
	mutex_unlock(&qgpu_lock);
	ida_free(&qgpu_slots, inst->slot);
	if (inst->kobj.state_in_sysfs)
		kobject_del(&inst->kobj);
	kobject_put(&inst->kobj);
	module_put(THIS_MODULE);
}

/**
 * qgpu_instance_create() - create an instance on a GPU
 * @gpu: the GPU parent whose ``create`` knob was written
 * @req: the parsed request
 *
 * The name is reserved under qgpu_lock first, so two writers of the same name cannot both
 * succeed; the sysfs directory and the nodes are then made without the lock, and the instance
 * becomes openable last. Each instance holds a module reference until it is removed.
 *
 * Context: process context (a sysfs write); takes qgpu_lock.
 * Return: 0; -EOPNOTSUPP if qgpu does not know the backend's driver version; -EINVAL for a
 * memory limit above the GPU's memory or a name already in use; -ENOSPC when the GPU or the
 * minor space is full, or the limit does not fit next to the others while the GPU's overcommit
 * is off; -ENOMEM or a driver-core error.
 */
int qgpu_instance_create(struct qgpu_gpu *gpu, const struct qgpu_create_req *req)
{
	struct qgpu_instance *inst;
	unsigned int k;
	int ret;

	if (!gpu->abi_known) {
		pr_warn_ratelimited("gpu%u: cannot create instance %s: backend driver version %s is not supported by qgpu (it knows 525-595)\n",
				    gpu->index, req->name, gpu->version);
		return -EOPNOTSUPP;
	}
	if (req->mem > gpu->memory)
		return -EINVAL;
	inst = kzalloc(sizeof(*inst), GFP_KERNEL);
	if (!inst)
		return -ENOMEM;
	inst->gpu = gpu;
	strscpy(inst->name, req->name, sizeof(inst->name));
	inst->settings = *req;
	qgpu_mem_inst_init(inst, req->mem, req->sysmem);
	inst->mem.refuse_managed = req->refuse_managed;
	inst->mem.refuse_dmabuf = req->refuse_dmabuf;
	qgpu_bound_init(&inst->channels, req->channels);
	qgpu_bound_init(&inst->objects, req->rm_objects);
	qgpu_bound_init(&inst->mapped, req->mapped);
	inst->state = QGPU_INST_CREATING;
	INIT_LIST_HEAD(&inst->files);
	mutex_init(&inst->params_seal);
	qgpu_os_events_init(&inst->os_events);
	kobject_init(&inst->kobj, &qgpu_instance_ktype);

	mutex_lock(&qgpu_lock);
	ret = -EINVAL;
	if (qgpu_name_taken(req->name))
		goto err_unlock;
	ret = -ENOSPC;
	if (gpu->num_instances >= QGPU_MAX_INSTANCES_PER_GPU ||
	    !qgpu_mem_create_fits(gpu, req->mem))
		goto err_unlock;
	ret = -EINVAL;
	if (!qgpu_sched_admit(gpu, NULL, req->core))
		goto err_unlock;
	inst->slot = ida_alloc_max(&qgpu_slots, QGPU_MAX_INSTANCES - 1, GFP_KERNEL);
	if (inst->slot < 0) {
		ret = inst->slot == -ENOMEM ? -ENOMEM : -ENOSPC;
		goto err_unlock;
	}
	list_add_tail(&inst->gpu_link, &gpu->instances);
	gpu->num_instances++;
	mutex_unlock(&qgpu_lock);
	__module_get(THIS_MODULE);

	ret = qgpu_sched_inst_init(inst);
	if (ret)
		goto err_teardown;
	ret = kobject_add(&inst->kobj, gpu->instances_kobj, "%s", inst->name);
	if (ret)
		goto err_teardown;
	for (k = 0; k < QGPU_NODES; k++) {
		dev_t devt = MKDEV(MAJOR(qgpu_devt), inst->slot * QGPU_NODES + k);

		inst->nodes[k] = device_create(qgpu_class, &gpu->dev, devt, inst, "qgpu!%s!%s",
					       inst->name, qgpu_node_name(k));
		if (IS_ERR(inst->nodes[k])) {
			ret = PTR_ERR(inst->nodes[k]);
			goto err_teardown;
		}
	}

	mutex_lock(&qgpu_lock);
	ret = xa_err(xa_store(&qgpu_by_slot, inst->slot, inst, GFP_KERNEL));
	if (!ret)
		inst->state = QGPU_INST_LIVE;
	mutex_unlock(&qgpu_lock);
	if (ret)
		goto err_teardown;
	kobject_uevent(&inst->kobj, KOBJ_ADD);
	qgpu_instance_event(inst, "instance_create", NULL);
	return 0;

err_teardown:
	pr_warn("gpu%u: creating instance %s failed (%d)\n", gpu->index, inst->name, ret);
	WRITE_ONCE(inst->state, QGPU_INST_REMOVED);
	qgpu_instance_teardown(inst);
	return ret;
err_unlock:
	mutex_unlock(&qgpu_lock);
	kobject_put(&inst->kobj);
	return ret;
}

/**
 * qgpu_instance_open() - the live instance a node's minor belongs to, for open()
 * @minor: the node's minor number
 * @node: set to which of the instance's nodes it is
 *
 * Counts the open at once, so that a removal racing with the rest of open() sees the instance
 * busy. Undo with qgpu_instance_close().
 *
 * Return: the instance with a reference held, or NULL if it is not (or no longer) live.
 */
struct qgpu_instance *qgpu_instance_open(unsigned int minor, enum qgpu_node *node)
{
	struct qgpu_instance *inst;

	mutex_lock(&qgpu_lock);
	inst = xa_load(&qgpu_by_slot, minor / QGPU_NODES);
	if (inst && inst->state == QGPU_INST_LIVE) {
		inst->open_count++;
		kobject_get(&inst->kobj);
	} else {
		inst = NULL;
	}
	mutex_unlock(&qgpu_lock);
	*node = minor % QGPU_NODES;
	return inst;
}

/**
 * qgpu_instance_attach_file() - list an open file in its instance's process list
 * @inst: from qgpu_instance_open()
 * @qf: the file, its @tgid and @comm filled in
 */
void qgpu_instance_attach_file(struct qgpu_instance *inst, struct qgpu_file *qf)
{
	mutex_lock(&qgpu_lock);
	list_add_tail(&qf->inst_link, &inst->files);
	mutex_unlock(&qgpu_lock);
}

/**
 * qgpu_instance_close() - undo qgpu_instance_open() (and qgpu_instance_attach_file())
 * @inst: the instance
 * @qf: the file if it was attached, else NULL
 *
 * Context: may drop the last reference to a removed instance.
 */
void qgpu_instance_close(struct qgpu_instance *inst, struct qgpu_file *qf)
{
	mutex_lock(&qgpu_lock);
	if (qf)
		list_del(&qf->inst_link);
	inst->open_count--;
	mutex_unlock(&qgpu_lock);
	kobject_put(&inst->kobj);
}

/**
 * qgpu_status_show_instances() - the instance part of /proc/qgpu/status for one GPU
 * @m: the seq_file
 * @gpu: the GPU
 */
void qgpu_status_show_instances(struct seq_file *m, struct qgpu_gpu *gpu)
{
	struct qgpu_instance *inst;
	struct qgpu_file *qf;

	mutex_lock(&qgpu_lock);
	seq_printf(m, "  instances:       %u of at most %u\n", gpu->num_instances,
		   QGPU_MAX_INSTANCES_PER_GPU);
	list_for_each_entry(inst, &gpu->instances, gpu_link) {
		if (inst->state != QGPU_INST_LIVE)
			continue;
		seq_printf(m, "  - instance %s: mem ", inst->name);
		if (inst->settings.mem)
			seq_printf(m, "%llu", inst->settings.mem);
		else
			seq_puts(m, "max");
		seq_printf(m, ", core %u, class %s, open files %u, rm objects %d, os events %u, channels %d, processes:",
			   inst->settings.core, qgpu_class_name(inst->settings.cls),
			   inst->open_count, qgpu_bound_count(&inst->objects),
			   READ_ONCE(inst->os_events.count), qgpu_bound_count(&inst->channels));
		list_for_each_entry(qf, &inst->files, inst_link)
			if (!qgpu_tgid_seen(inst, qf))
				seq_printf(m, " %d(%s)", qf->tgid, qf->comm);
		seq_putc(m, '\n');
	}
	mutex_unlock(&qgpu_lock);
}
