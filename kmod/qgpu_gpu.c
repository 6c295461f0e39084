// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: GPU parents, one per physical GPU of the backend driver, and their sysfs knobs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "qgpu_internal.h"
#include "qgpu_sched.h"

/**
 * DOC: sysfs of a GPU parent
 *
 * /sys/class/qgpu/gpu<N>/, N being the backend's minor number of the GPU (/dev/nvidia<N>):
 *
 * - ``create`` (0200): write ``NAME [mem=SIZE] [core=PCT] [class=online|offline]
 *   [managed=allow|refuse]`` to create an instance (see qgpu_create_parse()). NAME is
 *   ``[a-z0-9][a-z0-9_.-]{0,31}`` and unique over all GPUs; SIZE is bytes with an optional
 *   K/M/G/T suffix, or ``max`` (default), and at most the GPU's memory; PCT is 1..100 (default
 *   100); class defaults to online, managed to allow. Any error is
 *   -EINVAL and creates nothing, except -ENOSPC when the GPU already has
 *   QGPU_MAX_INSTANCES_PER_GPU (128) instances and -EOPNOTSUPP when qgpu does not know the
 *   backend driver's version (the kernel log names it).
 * - ``create_keys`` (0444): the keys ``create`` takes after NAME, space separated (tools tell
 *   from it what this module accepts).
 * - ``available_instances`` (0444): how many more instances ``create`` accepts.
 * - ``instances/``: one directory per instance (see DOC: sysfs of an instance).
 * - ``index``, ``name``, ``uuid``, ``memory`` (bytes), ``driver_version``, ``gpu_id`` (0444):
 *   the GPU's identity as the backend reported it at load.
 * - ``driver_supported`` (0444): 1 if qgpu knows the backend driver version's ABI (instances can
 *   be created), 0 if not.
 * - ``unknown_escapes`` (0644): ``allow`` (default) forwards escapes whose number the decoder
 *   does not know (and counts them); ``refuse`` fails them with -EINVAL, which is what the
 *   driver itself answers for an escape it does not implement.
 * - ``unknown_escapes_seen`` (0444): how many such escapes the GPU's instances issued.
 * - ``policy`` (0644), ``timeslice_us`` (0644), ``utilization`` (0444): compute scheduling
 *   (DOC: compute scheduling in qgpu_sched.c).
 *
 * Writes need CAP_SYS_ADMIN in the initial user namespace besides the file mode, so that root
 * in a container's user namespace cannot change a knob through a leaked sysfs fd.
 */

struct qgpu_gpu *qgpu_gpus[QGPU_MAX_GPUS];
unsigned int qgpu_num_gpus;

static struct qgpu_gpu *to_qgpu_gpu(struct device *dev)
{
	return container_of(dev, struct qgpu_gpu, dev);
}

static ssize_t create_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct qgpu_create_req req;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = qgpu_create_parse(buf, count, &req);
	if (ret)
		return ret;
	ret = qgpu_instance_create(to_qgpu_gpu(dev), &req);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(create);

static ssize_t create_keys_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", QGPU_CREATE_KEYS);
}
static DEVICE_ATTR_RO(create_keys);

static ssize_t available_instances_show(struct device *dev, struct device_attribute *attr,
					char *buf)
{
	return sysfs_emit(buf, "%u\n", qgpu_available_instances(to_qgpu_gpu(dev)));
}
static DEVICE_ATTR_RO(available_instances);

static ssize_t index_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_qgpu_gpu(dev)->index);
}
static DEVICE_ATTR_RO(index);

static ssize_t name_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_qgpu_gpu(dev)->name);
}
static DEVICE_ATTR_RO(name);

static ssize_t uuid_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_qgpu_gpu(dev)->uuid);
}
static DEVICE_ATTR_RO(uuid);

static ssize_t memory_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_qgpu_gpu(dev)->memory);
}
static DEVICE_ATTR_RO(memory);

/*
 * The NUMA node the GPU's memory is onlined as at load, -1 for none, "unknown" where the driver
 * did not say: such memory is the page allocator's to hand out, not RM's, so qgpu's limits do not
 * cover it (docs/design/memory-limits.md, "Coherent platforms").
 */
static ssize_t numa_node_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	int node = to_qgpu_gpu(dev)->numa_node;

	if (node == QGPU_NUMA_UNKNOWN)
		return sysfs_emit(buf, "unknown\n");
	return sysfs_emit(buf, "%d\n", node);
}
static DEVICE_ATTR_RO(numa_node);

static ssize_t driver_version_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_qgpu_gpu(dev)->version);
}
static DEVICE_ATTR_RO(driver_version);

static ssize_t driver_supported_show(struct device *dev, struct device_attribute *attr,
				     char *buf)
{
	return sysfs_emit(buf, "%d\n", to_qgpu_gpu(dev)->abi_known);
}
static DEVICE_ATTR_RO(driver_supported);

static ssize_t gpu_id_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%x\n", to_qgpu_gpu(dev)->card.gpu_id);
}
static DEVICE_ATTR_RO(gpu_id);

static ssize_t unknown_escapes_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(to_qgpu_gpu(dev)->refuse_unknown_escapes) ? "refuse" : "allow");
}

static ssize_t unknown_escapes_store(struct device *dev, struct device_attribute *attr,
				     const char *buf, size_t count)
{
	bool refuse;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (sysfs_streq(buf, "allow"))
		refuse = false;
	else if (sysfs_streq(buf, "refuse"))
		refuse = true;
	else
		return -EINVAL;
	WRITE_ONCE(to_qgpu_gpu(dev)->refuse_unknown_escapes, refuse);
	return count;
}
static DEVICE_ATTR_RW(unknown_escapes);

static ssize_t unknown_escapes_seen_show(struct device *dev, struct device_attribute *attr,
					 char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  (long long)atomic64_read(&to_qgpu_gpu(dev)->unknown_escapes));
}
static DEVICE_ATTR_RO(unknown_escapes_seen);

static struct attribute *qgpu_gpu_attrs[] = {
	&dev_attr_create.attr,
	&dev_attr_create_keys.attr,
	&dev_attr_driver_supported.attr,
	&dev_attr_available_instances.attr,
	&dev_attr_index.attr,
	&dev_attr_name.attr,
	&dev_attr_uuid.attr,
	&dev_attr_memory.attr,
	&dev_attr_numa_node.attr,
	&dev_attr_driver_version.attr,
	&dev_attr_gpu_id.attr,
	&dev_attr_unknown_escapes.attr,
	&dev_attr_unknown_escapes_seen.attr,
	&dev_attr_overcommit.attr,	/* qgpu_mem.c */
	NULL,
};

static const struct attribute_group qgpu_gpu_group = {
	.attrs = qgpu_gpu_attrs,
};

static const struct attribute_group *qgpu_gpu_groups[] = {
	&qgpu_gpu_group,
	&qgpu_sched_gpu_group,
	NULL,
};

static void qgpu_gpu_release(struct device *dev)
{
	struct qgpu_gpu *gpu = to_qgpu_gpu(dev);

	kfree(gpu->ctxbuf);
	kfree(gpu);
}

/**
 * qgpu_gpu_new() - a GPU parent, not yet visible
 * @card: the GPU's CARD_INFO entry
 * @version: the backend driver's version string
 *
 * Identity fields default to what CARD_INFO tells (memory: the BAR1 size, which equals the
 * framebuffer with resizable BAR); qgpu_probe_identity() refines them.
 *
 * Return: the new GPU (free it with put_device() if qgpu_gpu_register() is not called or
 * fails), or NULL without memory.
 */
struct qgpu_gpu *qgpu_gpu_new(const struct nvrm_card_info *card, const char *version)
{
	struct qgpu_gpu *gpu = kzalloc(sizeof(*gpu), GFP_KERNEL);

	if (!gpu)
		return NULL;
	gpu->index = card->minor_number;
	gpu->card = *card;
	gpu->device_instance = card->minor_number;
	strscpy(gpu->name, "unknown", sizeof(gpu->name));
	gpu->memory = card->fb_size;
	gpu->numa_node = QGPU_NUMA_UNKNOWN;
	gpu->abi_known = !nvrm_abi_init(&gpu->abi, version);
	strscpy(gpu->version, version, sizeof(gpu->version));
	INIT_LIST_HEAD(&gpu->instances);
	atomic64_set(&gpu->unknown_escapes, 0);

	device_initialize(&gpu->dev);
	gpu->dev.class = qgpu_class;
	gpu->dev.groups = qgpu_gpu_groups;
	gpu->dev.release = qgpu_gpu_release;
	return gpu;
}

/**
 * qgpu_gpu_register() - make a GPU parent visible in sysfs and to the rest of qgpu
 * @gpu: from qgpu_gpu_new(); consumed on failure
 *
 * Context: module init.
 * Return: 0, -ENOSPC past QGPU_MAX_GPUS, or the error of creating its sysfs entries.
 */
int qgpu_gpu_register(struct qgpu_gpu *gpu)
{
	int ret;

	if (qgpu_num_gpus == QGPU_MAX_GPUS) {
		ret = -ENOSPC;
		goto err_put;
	}
	ret = dev_set_name(&gpu->dev, "gpu%u", gpu->index);
	if (ret)
		goto err_put;
	ret = qgpu_sched_gpu_init(gpu);
	if (ret)
		goto err_put;
	ret = device_add(&gpu->dev);
	if (ret) {
		pr_warn("adding gpu%u failed (%d)\n", gpu->index, ret);
		goto err_sched;
	}
	gpu->instances_kobj = kobject_create_and_add("instances", &gpu->dev.kobj);
	if (!gpu->instances_kobj) {
		ret = -ENOMEM;
		goto err_del;
	}
	qgpu_gpus[qgpu_num_gpus++] = gpu;
	return 0;

err_del:
	device_del(&gpu->dev);
err_sched:
	qgpu_sched_gpu_exit(gpu);
err_put:
	put_device(&gpu->dev);
	return ret;
}

/**
 * qgpu_gpus_remove_all() - remove every GPU parent
 *
 * Context: module init failure or exit; no instance exists (each holds a module reference).
 */
void qgpu_gpus_remove_all(void)
{
	while (qgpu_num_gpus) {
		struct qgpu_gpu *gpu = qgpu_gpus[--qgpu_num_gpus];

		qgpu_gpus[qgpu_num_gpus] = NULL;
		kobject_put(gpu->instances_kobj);
		device_del(&gpu->dev);
		qgpu_sched_gpu_exit(gpu);
		put_device(&gpu->dev);
	}
}
