/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu internals shared between its files.
 *
 * Objects: one struct qgpu_gpu per physical GPU of the backend driver (found at load), owning
 * struct qgpu_instance children (created through sysfs), each with three device nodes whose
 * opens are struct qgpu_file, each forwarding to exactly one real backend file.
 *
 * Locking: qgpu_lock (a mutex) protects the instance registry (qgpu_instances, every GPU's
 * instance list and count), every instance's @state, @open_count and @files list. It is never
 * held across a forwarded call into the backend, nor while sysfs entries or device nodes are
 * added or removed (their show/store handlers take it, and kernfs waits for running handlers
 * when it removes a file). Lock order: qgpu_lock, then nothing of ours.
 *
 * Memory: what qgpu keeps because a tenant made something (its open files, mirror nodes and
 * charges, OS-event keys, channel records, UVM holds, export slots, doorbell mappings) is
 * allocated with GFP_KERNEL_ACCOUNT in the tenant's own calls, so the tenant's memory cgroup
 * pays for it and bounds it, as for the kernel's own files and pipes.
 */
#ifndef QGPU_INTERNAL_H
#define QGPU_INTERNAL_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "nvrm/nvrm_decode.h"
#include "qgpu_bound.h"
#include "qgpu_channels.h"
#include "qgpu_objects.h"
#include "qgpu_create_parse.h"
#include "qgpu_gpucheck.h"
#include "qgpu_lend.h"
#include "qgpu_mem.h"
#include "qgpu_os_events.h"
#include "qgpu_seal.h"

struct qgpu_ctxbuf_sizes;
struct qgpu_rmtrack;
struct qgpu_sched_gpu;
struct qgpu_sched_inst;

#define QGPU_MAX_GPUS			32	/* NV_MAX_DEVICES, 525-595 */
#define QGPU_MAX_INSTANCES_PER_GPU	128
#define QGPU_MAX_INSTANCES		1024	/* all GPUs together: the minor space */
#define QGPU_GPU_NAME_LEN		NVRM_GPU_MAX_NAME_STRING_LENGTH
#define QGPU_UUID_LEN			64

/**
 * enum qgpu_node - the three nodes of an instance, in minor order
 * @QGPU_NODE_CTL: /dev/qgpu/<name>/nvidiactl, backed by <backend_dir>/nvidiactl
 * @QGPU_NODE_GPU: /dev/qgpu/<name>/nvidia0, backed by <backend_dir>/nvidia<minor of the GPU>
 * @QGPU_NODE_UVM: /dev/qgpu/<name>/nvidia-uvm, backed by <backend_dir>/nvidia-uvm
 * @QGPU_NODES: how many
 */
enum qgpu_node {
	QGPU_NODE_CTL,
	QGPU_NODE_GPU,
	QGPU_NODE_UVM,
	QGPU_NODES,
};

/* struct qgpu_gpu.numa_node where NUMA_INFO failed or was not asked */
#define QGPU_NUMA_UNKNOWN	INT_MIN

/**
 * struct qgpu_gpu - one physical GPU of the backend driver (an mdev-style parent)
 * @dev: /sys/class/qgpu/gpu<index>
 * @index: the backend's minor number of the GPU (<backend_dir>/nvidia<index>)
 * @card: the GPU's CARD_INFO entry as the backend reported it at load
 * @device_instance: its RM device instance (NV0000 GPU_GET_ID_INFO_V2), what NV01_DEVICE_0
 *	allocations name it by
 * @name: marketing name (GPU_GET_NAME_STRING), "unknown" if the probe failed
 * @uuid: "GPU-..." (GPU_GET_GID_INFO), empty if the probe failed
 * @memory: framebuffer bytes (FB_GET_INFO_V2 TOTAL_RAM_SIZE, else CARD_INFO fb_size)
 * @abi: the decoder profile of the backend's driver version; valid iff @abi_known
 * @abi_known: qgpu knows the backend's version; instances can only be created if so
 * @version: the backend driver's version string (CHECK_VERSION_STR QUERY)
 * @instances_kobj: /sys/class/qgpu/gpu<index>/instances
 * @instances: its instances (struct qgpu_instance.gpu_link), under qgpu_lock
 * @num_instances: length of @instances, under qgpu_lock
 * @refuse_unknown_escapes: the unknown_escapes knob is "refuse" (read locklessly: a knob flip
 *	may race with calls in flight, each of which sees either value)
 * @unknown_escapes: escapes outside the decoder's known set seen on this GPU's instances
 * @kc_device: qgpu's own device of this GPU in its kernel RM client, 0 until first use
 * @kc_subdevice: its subdevice (both under qgpu_kclient.c's lock)
 * @overcommit: the sum of its instances' memory limits may exceed @memory (written under
 *	qgpu_lock, read locklessly)
 * @ctxbuf: what RM reserves for its channel groups, NULL until first asked (qgpu_ctxbuf.c; set
 *	once by cmpxchg, read with smp_load_acquire(), freed with the GPU)
 * @sched: its compute scheduler (qgpu_sched.c)
 * @rm_gpu: the GPU as the driver's GPU-file check names it (its nv_state_t, never dereferenced),
 *	learned at load (DOC: GPU-file check); NULL: not known, and the check is met by a file
 *	installed for the call
 * @numa_node: the NUMA node the GPU's memory is onlined as (a coherent platform), -1 for none,
 *	QGPU_NUMA_UNKNOWN where the driver did not say; from NUMA_INFO at load
 */
struct qgpu_gpu {
	struct device dev;
	unsigned int index;
	struct nvrm_card_info card;
	u32 device_instance;
	char name[QGPU_GPU_NAME_LEN];
	char uuid[QGPU_UUID_LEN];
	u64 memory;
	struct nvrm_abi abi;
	bool abi_known;
	char version[NVRM_RM_API_VERSION_STRING_LENGTH];
	struct kobject *instances_kobj;
	struct list_head instances;
	unsigned int num_instances;
	bool refuse_unknown_escapes;
	atomic64_t unknown_escapes;
	u32 kc_device;
	u32 kc_subdevice;
	bool overcommit;
	struct qgpu_ctxbuf_sizes *ctxbuf;
	struct qgpu_sched_gpu *sched;
	const void *rm_gpu;
	int numa_node;
};

/**
 * enum qgpu_instance_state - where an instance is in its life
 * @QGPU_INST_CREATING: name reserved, sysfs and nodes being set up; not openable
 * @QGPU_INST_LIVE: openable
 * @QGPU_INST_REMOVED: removed; opens fail, and after a forced removal every call on files still
 *	open fails with -ENODEV
 */
enum qgpu_instance_state {
	QGPU_INST_CREATING,
	QGPU_INST_LIVE,
	QGPU_INST_REMOVED,
};

/**
 * struct qgpu_instance - one vGPU instance
 * @kobj: /sys/class/qgpu/gpu<N>/instances/<name>; its refcount is the instance's lifetime (each
 *	open file holds one)
 * @gpu: the physical GPU it runs on
 * @name: its name (qgpu_name_valid())
 * @settings: mem/core/class as created (enforced by later issues)
 * @slot: its index in the minor space; minors are slot * QGPU_NODES + enum qgpu_node
 * @nodes: the three node devices
 * @gpu_link: entry in @gpu->instances
 * @state: see enum qgpu_instance_state; written under qgpu_lock, read locklessly by the
 *	forwarding paths (READ_ONCE), which only need to see a removal eventually
 * @open_count: open files of its nodes, under qgpu_lock
 * @files: those files (struct qgpu_file.inst_link), under qgpu_lock
 * @objects: RM objects its tenants hold, as qgpu's mirror counts them, and their bound
 *	(qgpu_objects.c); they can outlive the files (a mapping keeps the real ctl file and RM's
 *	clients)
 * @mem: its memory limit and charges (qgpu_mem.c)
 * @channels: its channels and channel groups, counted and bounded (qgpu_channels.c)
 * @mapped: the 2 MiB regions of GPU address space its RM mappings span, and their bound
 *	(qgpu_mapped.c)
 * @os_events: the OS events RM holds for its files (qgpu_os_events.c)
 * @sched: its compute-scheduling state (qgpu_sched.c), freed with the instance
 * @params_seal: one forward at a time whose parameters qgpu has RM or UVM read from its checked
 *	copy (qgpu_clients.c): such a forward can hold one instance of a kretprobe's pool while the
 *	call waits (on the tenant's memory, on a lock a sibling holds), so every instance together
 *	holds at most QGPU_MAX_INSTANCES and the pools never run dry. Taken after a tracker's lock.
 */
struct qgpu_instance {
	struct kobject kobj;
	struct qgpu_gpu *gpu;
	char name[QGPU_NAME_MAX + 1];
	struct qgpu_create_req settings;
	int slot;
	struct device *nodes[QGPU_NODES];
	struct list_head gpu_link;
	enum qgpu_instance_state state;
	unsigned int open_count;
	struct list_head files;
	struct qgpu_bound objects;
	struct qgpu_mem_inst mem;
	struct qgpu_bound channels;
	struct qgpu_bound mapped;
	struct qgpu_os_events os_events;
	struct qgpu_sched_inst *sched;
	struct mutex params_seal;	/* see @params_seal above */
};

/* The instance whose sysfs directory @kobj is (every instance attribute's show and store). */
static inline struct qgpu_instance *qgpu_instance_of(struct kobject *kobj)
{
	return container_of(kobj, struct qgpu_instance, kobj);
}

/**
 * struct qgpu_file - one open of an instance node: private_data of the proxy file
 * @real: the backend file it forwards to, opened for this open alone (1:1, same lifetime)
 * @inst: its instance (a reference on @inst->kobj)
 * @node: which node was opened
 * @tgid: the opener's process, for the instance's process list
 * @comm: the opener's command name
 * @inst_link: entry in @inst->files, under qgpu_lock
 * @track: for a nvidiactl proxy, the mirror of the RM objects allocated through it
 *	(qgpu_rmtrack.c); NULL for the other nodes
 * @doorbell: for a GPU proxy, RM mapped a usermode object through it: its mmaps are doorbell
 *	mappings, which the scheduler interposes on (qgpu_vma.c)
 * @events_track: for a GPU proxy with OS events, the tracker their keys belong to, which keeps
 *	the real file until RM lets them go (qgpu_os_events.c); set under the instance's
 *	os_events.lock, NULL otherwise
 * @ctl_proxy: for a GPU proxy, the instance's ctl proxy that REGISTER_FD bound it to (a
 *	reference), whose tracker mirrors what RM makes through the GPU proxy for its clients;
 *	set once (cmpxchg), as the driver keeps the first binding, and NULL before
 */
struct qgpu_file {
	struct file *real;
	struct qgpu_instance *inst;
	enum qgpu_node node;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	struct list_head inst_link;
	struct qgpu_rmtrack *track;
	bool doorbell;
	struct qgpu_rmtrack *events_track;
	struct file *ctl_proxy;
};

extern struct mutex qgpu_lock;
extern struct class *qgpu_class;
extern dev_t qgpu_devt;
extern struct path qgpu_backend_path;
extern bool qgpu_have_backend;
extern const struct file_operations qgpu_fops;
extern struct qgpu_gpu *qgpu_gpus[QGPU_MAX_GPUS];
extern unsigned int qgpu_num_gpus;
extern const struct file_operations *qgpu_backend_fops[QGPU_NODES];

/* qgpu_probe.c: ask the backend what GPUs it has, from a process context */
int qgpu_probe_backend(bool gpucheck);

/* qgpu_gpu.c: GPU parents */
struct qgpu_gpu *qgpu_gpu_new(const struct nvrm_card_info *card, const char *version);
int qgpu_gpu_register(struct qgpu_gpu *gpu);
void qgpu_gpus_remove_all(void);

/* qgpu_instance.c */
int qgpu_instance_create(struct qgpu_gpu *gpu, const struct qgpu_create_req *req);
struct qgpu_instance *qgpu_instance_open(unsigned int minor, enum qgpu_node *node);
void qgpu_instance_attach_file(struct qgpu_instance *inst, struct qgpu_file *qf);
void qgpu_instance_close(struct qgpu_instance *inst, struct qgpu_file *qf);
unsigned int qgpu_available_instances(const struct qgpu_gpu *gpu);
const char *qgpu_node_name(enum qgpu_node node);
void qgpu_status_show_instances(struct seq_file *m, struct qgpu_gpu *gpu);

/* qgpu_fops.c */
struct file *qgpu_open_backend(enum qgpu_node node, const struct qgpu_gpu *gpu, int flags);

/* qgpu_escape.c: NVIDIA ioctls on ctl and GPU nodes, UVM ioctls */
void qgpu_escape_init(void);
long qgpu_escape_ioctl(struct file *file, unsigned int cmd, unsigned long arg, bool compat);
long qgpu_uvm_ioctl(struct file *file, unsigned int cmd, unsigned long arg, bool compat);
long qgpu_forward_ioctl(struct file *real, unsigned int cmd, unsigned long arg, bool compat);
long qgpu_forward_control(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			  const struct nvrm_control *c, u32 *status);

/* qgpu_clients.c: client handles in a tenant's parameters (DOC: client handles in parameters) */
struct qgpu_seal;
bool qgpu_clients_control(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			  const struct nvrm_control *c, long *ret);
int qgpu_clients_alloc_begin(struct qgpu_file *qf, const struct nvrm_alloc *a,
			     struct qgpu_seal *seal, void **params, u32 *status);
void qgpu_clients_alloc_end(struct qgpu_file *qf, struct qgpu_seal *seal, void *params,
			    bool rm_ok);
long qgpu_clients_os_event(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			   bool compat);
long qgpu_clients_registry(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			   bool compat);
long qgpu_clients_share(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			bool compat);
long qgpu_clients_update_mapping(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				 u32 size, bool compat);
bool qgpu_clients_uvm(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
		      long *ret);

/* qgpu_dmabuf.c: EXPORT_TO_DMABUF_FD on GPU nodes, and the dma-buf capability instances report */
long qgpu_dmabuf_export(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			bool compat);
bool qgpu_dmabuf_gpu_info(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
			  bool compat, const struct nvrm_control *c, long *ret);

/* qgpu_fdxlate.c: fd arguments and the GPU-file check */

struct qgpu_xlate_lock;

/**
 * struct qgpu_xlate - the real files one forwarded call gives the driver
 * @lock: the per-fd-table lock held from qgpu_xlate_begin() to qgpu_xlate_end()
 * @own: the caller's fd table's own lock entry, @lock's owner (NULL: a hashed fallback lock)
 * @n: how many files are installed in the caller's fd table
 * @fd: their temporary fd numbers
 * @file: the files (a reference each, besides the fd table's)
 * @proxy: the proxy the first translated fd named (a reference), or NULL
 * @rm: the call's fd arguments are RM's (control and GPU nodes), else nvidia-uvm's (its own)
 * @lending: fd arguments are lent to the driver under the tenant's own numbers
 *	(qgpu_lend_file()), not installed
 * @lend: the files lent
 * @check: the driver's GPU-file check, answered for the instance's GPU (qgpu_gpucheck_grant())
 */
struct qgpu_xlate {
	struct mutex *lock;	/* not ours: @own's, or a hashed fallback in qgpu_fdxlate.c */
	struct qgpu_xlate_lock *own;
	unsigned int n;
	int fd[2];
	struct file *file[2];
	struct file *proxy;
	bool rm;
	bool lending;
	struct qgpu_lend lend;
	struct qgpu_gpucheck check;
};

void qgpu_xlate_begin(struct qgpu_xlate *x, bool rm);
int qgpu_xlate_fd(struct qgpu_xlate *x, struct qgpu_file *qf, int fd, int *real_fd);
int qgpu_xlate_gpu_visible(struct qgpu_xlate *x, struct qgpu_file *qf);
void qgpu_xlate_end(struct qgpu_xlate *x);
void qgpu_fdxlate_init(void);

#endif /* QGPU_INTERNAL_H */
