/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvsim internals shared between its files.
 *
 * Locking: nvsim_rm_lock (a mutex, like the real RM's global API lock) protects every client, every
 * object, every resource's RM-side state and every GPU's framebuffer accounting below. Handlers
 * may sleep and copy user memory while holding it. Files' own fields are set under it and read
 * under it. The engine (nvsim_engine.c) has its own lock for what it touches while work runs;
 * backing pages (struct nvsim_backing) are reference counted and need no lock to read.
 */
#ifndef NVSIM_INTERNAL_H
#define NVSIM_INTERNAL_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "nvrm/nvrm_decode.h"

#define NVSIM_MAJOR		195	/* kernel-open/common/inc/nv.h, 525-595 */
#define NVSIM_CTL_MINOR		255
#define NVSIM_MAX_GPUS		32	/* NV_MAX_DEVICES, 525-595 */
#define NVSIM_NAME_LEN		NVRM_GPU_MAX_NAME_STRING_LENGTH
#define NVSIM_UUID_LEN		41	/* "GPU-" + 36 + NUL */
/* RM's reserved heap for kernel allocations (its size is the GPU's; nvsim's is a fixed one) */
#define NVSIM_RESERVED_HEAP	(64ull << 20)

struct proc_dir_entry;

/**
 * struct nvsim_gpu - one simulated GPU
 * @index: its minor number, /dev/nvidia<index>
 * @gpu_id: the id CARD_INFO and ATTACH_GPUS_TO_FD use (PCI-derived, as the real driver's)
 * @fb_size: framebuffer size in bytes
 * @fb_used: bytes of framebuffer allocated by clients (under nvsim_rm_lock)
 * @rsvd_used: bytes of RM's reserved heap allocated by kernel callers with
 *	ALLOCATE_FROM_RESERVED_HEAP, which the framebuffer heap does not count (under nvsim_rm_lock)
 * @next_gpu_addr: where the next memory object is placed in nvsim's GPU address space (under
 *	nvsim_rm_lock); see struct nvsim_mem
 * @uuid: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
 * @engine: the simulated engine of this GPU (nvsim_engine.c)
 * @proc: its /proc/driver/nvsim/gpu<N> directory
 * @attached: references ctl files took with ATTACH_GPUS_TO_FD (nvsim_attach.c)
 * @dma_maps: RM_MAP_MEMORY_DMA records live in its virtual allocations (nvsim_dmamap.c; under
 *	nvsim_rm_lock)
 * @dma_mapped: the bytes they map (under nvsim_rm_lock)
 */
struct nvsim_gpu {
	unsigned int index;
	u32 gpu_id;
	u64 fb_size;
	u64 fb_used;
	u64 rsvd_used;
	u64 next_gpu_addr;
	char uuid[NVSIM_UUID_LEN];
	struct nvsim_engine *engine;
	struct proc_dir_entry *proc;
	atomic_t attached;
	unsigned int dma_maps;
	u64 dma_mapped;
};

struct nvsim_export_slot;

/**
 * struct nvsim_file - what one open of an nvsim node is
 * @gpu: the GPU for /dev/nvidiaN, NULL for /dev/nvidiactl (/dev/nvidia-uvm files are not
 *	nvsim_files: see nvsim_uvm.c)
 * @is_ctl: this is /dev/nvidiactl
 * @ctl_file: for a GPU file after REGISTER_FD, the ctl file it is registered to (a reference kept
 *	until this file closes, as the real driver does)
 * @mapping: GPU files' own address space (file->f_mapping points here, as the real driver's
 *	nv_init_mapping_revocation() does), so mappings of one file can be zapped alone
 * @mmap_lock: protects @mmap_ctx. Not nvsim_rm_lock: ->mmap runs under the caller's mmap
 *	lock, and RM handlers take that (copying user memory) under nvsim_rm_lock. Order:
 *	nvsim_rm_lock -> mmap_lock (mm) -> @mmap_lock; nothing faults under @mmap_lock.
 * @mmap_ctx: the one mapping context RM_MAP_MEMORY / RM_ALLOC_MEMORY attached to this file, or
 *	NULL (nvsim_mmap.c)
 * @waitq: poll() sleeps here until an OS event of this file fires (nvsim_event.c)
 * @event_data: queued events with data, oldest first (under nvsim_event_lock)
 * @dataless_pending: an event without data fired since the last poll (under nvsim_event_lock)
 * @exports: for a nvidiactl file set up as an export fd, its slots of exported objects
 *	(nvsim_export.c); NULL otherwise. Under nvsim_rm_lock, as the next two.
 * @max_exports: how many slots @exports has
 * @export_device: the device instance the export fd is tied to (NV_MAX_DEVICES: none)
 * @attached_gpus: the ids ATTACH_GPUS_TO_FD recorded on a ctl file, as the driver keeps them
 *	(zeros included), or NULL (nvsim_attach.c)
 * @num_attached_gpus: how many; set once per file
 */
struct nvsim_file {
	struct nvsim_gpu *gpu;
	bool is_ctl;
	struct file *ctl_file;
	struct address_space mapping;
	struct mutex mmap_lock;	/* protects @mmap_ctx, see above */
	struct nvsim_mmap_ctx *mmap_ctx;
	wait_queue_head_t waitq;
	struct list_head event_data;
	bool dataless_pending;
	struct nvsim_export_slot *exports;
	u16 max_exports;
	u32 export_device;
	u32 *attached_gpus;
	u32 num_attached_gpus;
};

/**
 * struct nvsim_caller - who an RM call comes from
 * @owner: what clients are bound to: the /dev/nvidiactl struct file of a user call, or the session
 *	of a kernel client (nvsim_kapi.c)
 * @kernel: a kernel-privileged call: pointers inside the parameters are kernel pointers
 * @tgid: the calling process (0 for kernel calls)
 */
struct nvsim_caller {
	const void *owner;
	bool kernel;
	pid_t tgid;
};

/**
 * struct nvsim_res - the state behind an RM object, shared by every handle that refers to it
 * @ref: one reference per object handle (the original and each RM_DUP_OBJECT copy)
 * @release: frees the containing structure when the last handle goes; called under nvsim_rm_lock
 *
 * Objects of classes with no state of their own have no resource (object->res is NULL).
 */
struct nvsim_res {
	struct kref ref;
	void (*release)(struct nvsim_res *res);
};

struct nvsim_client;
struct nvsim_share_list;

/**
 * struct nvsim_object - one RM object handle
 * @handle: its handle, unique within the client
 * @hclass: its class
 * @client: the client it belongs to
 * @parent: the object it was allocated under; NULL for a client's root object
 * @children: objects allocated under this one
 * @sibling: entry in the parent's @children
 * @gpu: the GPU of a device and of everything under it; NULL above
 * @res: the resource this handle refers to, or NULL
 * @cpu_maps: RM_MAP_MEMORY records naming this handle (nvsim_mmap.c), dropped with it
 * @shares: its own share policy list once an RM_SHARE set one (nvsim_dup.c), else NULL: the
 *	default policy applies
 * @dma_maps: its parts in RM_MAP_MEMORY_DMA records, as hDma, hMemory or hDevice
 *	(nvsim_dmamap.c), which go with it
 */
struct nvsim_object {
	u32 handle;
	u32 hclass;
	struct nvsim_client *client;
	struct nvsim_object *parent;
	struct list_head children;
	struct list_head sibling;
	struct nvsim_gpu *gpu;
	struct nvsim_res *res;
	unsigned int cpu_maps;
	struct nvsim_share_list *shares;
	struct list_head dma_maps;
};

/**
 * struct nvsim_client - an RM client (root object of class NV01_ROOT_CLIENT)
 * @root: its root object; @root.handle is the client handle
 * @owner: what it is bound to (struct nvsim_caller.owner); not a reference: the client dies with it
 * @kernel: allocated through the kernel-client interface
 * @tgid: the process that allocated it (0 for kernel clients)
 * @pid: a reference to that process's struct pid (NULL for kernel clients), for per-process usage
 *	reported in the caller's PID namespace
 * @objects: handle -> object for every object of the client, the root included
 * @next_handle: the next handle to generate when the caller passes 0
 * @privileged: allocated by the kernel or by a process with CAP_SYS_ADMIN, as RM fixes a
 *	client's privilege when it is made (os_is_administrator(), 525-595)
 */
struct nvsim_client {
	struct nvsim_object root;
	const void *owner;
	bool kernel;
	bool privileged;
	pid_t tgid;
	struct pid *pid;
	struct xarray objects;
	u32 next_handle;
};

/* struct nvsim_control.hclass of the NV0041 controls: any memory object with pages. */
#define NVSIM_CTRL_CLASS_MEMORY	0xFFFF0041u

/**
 * struct nvsim_control - a control nvsim implements
 * @cmd: the control command
 * @hclass: the class of object it is issued on (any channel class matches any other;
 *	NVSIM_CTRL_CLASS_MEMORY: any memory object with pages, the NV0041 interface)
 * @size: its params size (paramsSize must match exactly); 0: depends on the ABI version
 * @handler: does it on a kernel copy of the params; returns an RM status. Called under
 *	nvsim_rm_lock.
 */
struct nvsim_control {
	u32 cmd;
	u32 hclass;
	u32 size;
	u32 (*handler)(const struct nvsim_caller *caller, struct nvsim_object *obj, void *buf);
};

/**
 * struct nvsim_backing - the pages behind a memory object that user space maps and the engine reads
 * @ref: held by the memory resource, by each VMA mapping it and by each channel using it
 * @size: its size in bytes
 * @pages: page index -> struct page, allocated zeroed on first touch
 */
struct nvsim_backing {
	struct kref ref;
	u64 size;
	struct xarray pages;
};

/**
 * struct nvsim_mem - a memory object's resource (classes 0x40, 0x3E, 0x50A0)
 * @res: the shared resource (dups of the memory refer to it)
 * @gpu: its GPU
 * @hclass: its class
 * @size: its size in bytes, as allocated (rounded to its page size)
 * @fb_bytes: framebuffer it holds, charged to @gpu->fb_used until the last handle goes
 * @rsvd_bytes: RM's reserved heap it holds instead, charged to @gpu->rsvd_used
 * @gpu_addr: where it sits in nvsim's GPU address space. nvsim models one identity address space
 *	per GPU: a memory object's GPU virtual address is @gpu_addr, so a channel's gpFifoOffset
 *	names the memory holding its ring directly (documented in kmod/nvsim/README.md).
 * @page_size: its GPU page size, as the attr asked (what NV_MEMORY_FABRIC checks)
 * @backing: CPU-visible pages (NULL for virtual memory)
 * @owner_tgid: the process whose client allocated it (per-process usage)
 * @owner: the client that allocated it
 * @owner_obj: the handle that allocated it (RM's isMemDescOwner: per-process usage counts it as
 *	"shared owned" while dups exist, and every dup as "shared duped"); NULL once freed
 */
struct nvsim_mem {
	struct nvsim_res res;
	struct nvsim_gpu *gpu;
	u32 hclass;
	u64 size;
	u64 fb_bytes;
	u64 rsvd_bytes;
	u64 gpu_addr;
	u64 page_size;
	struct nvsim_backing *backing;
	pid_t owner_tgid;
	struct nvsim_client *owner;
	const struct nvsim_object *owner_obj;
};

struct nvsim_engine;
struct nvsim_proc_stats;

/**
 * struct nvsim_tsg - a channel group (KEPLER_CHANNEL_GROUP_A) and the unit the engine schedules
 * @res: the shared resource (dups of the TSG refer to it); channels hold a reference too
 * @gpu: its GPU
 * @engine: its GPU's engine
 * @id: unique per GPU, never reused while the module is loaded
 * @tgid: the process whose client allocated it (0 for kernel clients)
 * @hclient: that client's handle
 * @handle: its handle in that client (the channel's handle for an implicit TSG)
 * @implicit: allocated by nvsim for a channel created directly under a device, as RM does
 * @stats: per-process totals this TSG's work is added to (kept after the TSG goes)
 * @all_node: entry in the engine's list of every TSG (for /proc)
 * @rl_node: entry in the engine's runlist while @runlisted
 * @channels: its channels (struct nvsim_channel.tsg_node)
 * @next_chan: the channel round robin looks at first next time (NULL: the first)
 * @runlisted: on the runlist (GPFIFO_SCHEDULE(1) seen and no effective (0) since)
 * @timeslice_us: the timeslice the engine uses
 * @timeslice_us_reported: what GET_TIMESLICE reports (differs when controls are inert)
 * @interleave: its interleave level (NVRM_INTERLEAVE_LEVEL_*), its channels' too; only reported:
 *	RM's runlists follow it only under a policy a privileged client sets
 *	(NV2080_CTRL_CMD_FIFO_RUNLIST_SET_SCHED_POLICY), and an H200 with GSP 580.159.04 shared the
 *	engine the same at HIGH and LOW (docs/design/compute-scheduling.md)
 * @cilp_mode: its context's compute preemption mode (NVRM_GR_COMPUTE_PREEMPT_*), WFI until a
 *	GR_SET_CTXSW_PREEMPTION_MODE: with any but CILP a kernel it executes runs to its end before
 *	it leaves the engine (nvsim_engine_request_preempt())
 * @gfxp_mode: its graphics preemption mode; only reported
 * @realtime: a privileged client made it real-time (MAKE_REALTIME); only reported
 * @preempt_req: PREEMPT requests made on it
 * @preempt_done: requests completed (it left the engine, or was not on it)
 * @busy_ns: GPU time its kernels executed
 * @kernels: KERNEL entries completed
 * @preemptions: times it was taken off the engine with work left (timeslice, PREEMPT, disable)
 * @nchannels: number of channels in @channels (RM's chanCount, 128 at most); changed under
 *	nvsim_rm_lock and the engine lock both, so either may read it
 * @ctx_fb_bytes: video memory its context buffers take (nvsim_fifo.c), until it goes
 * @gr: a graphics engine's group: its channels have context buffers for UVM to map
 * @engine_type: the NV2080 engine type it was made for; its channels must name it or none
 * @pool_chunks: chunks of video memory its channel pool holds (nvsim_fifo.c), under nvsim_rm_lock
 * @pool_blocks: its channels' instance blocks in those chunks, under nvsim_rm_lock
 * @vas: the VA space it was made in (a reference; NULL: its device's default)
 * @runlist_assigned: on a runlist (RM's bRunlistAssigned): channels made from now on are too
 *	(nvsim_engine_object_construct()). Under nvsim_rm_lock
 * @all_runlisted: a GPFIFO_SCHEDULE of it put every channel on its runlist. Under nvsim_rm_lock
 * @legacy: RM made its legacy subcontexts, for a channel that named none (bLegacyMode); its
 *	channels must name none while it has any. Under nvsim_rm_lock
 * @unbound: its graphics channels in an externally owned VA space that UVM has not bound yet,
 *	which keep GPFIFO_SCHEDULE from it (nvsim_fifo.c). Under nvsim_rm_lock
 *
 * The fields from @all_node on are protected by the engine lock (struct nvsim_engine.lock in
 * nvsim_engine.c), except @timeslice_us_reported, @interleave, @gfxp_mode and @realtime, which
 * only controls touch (nvsim_rm_lock), and @cilp_mode, which controls write under both locks.
 */
struct nvsim_tsg {
	struct nvsim_res res;
	struct nvsim_gpu *gpu;
	struct nvsim_engine *engine;
	u32 id;
	pid_t tgid;
	u32 hclient;
	u32 handle;
	bool implicit;
	struct nvsim_proc_stats *stats;

	struct list_head all_node;
	struct list_head rl_node;
	struct list_head channels;
	struct nvsim_channel *next_chan;
	bool runlisted;
	u64 timeslice_us;
	u64 timeslice_us_reported;
	u32 interleave;
	u32 cilp_mode;
	u32 gfxp_mode;
	bool realtime;
	u64 preempt_req;
	u64 preempt_done;
	u64 busy_ns;
	u64 kernels;
	u64 preemptions;
	unsigned int nchannels;
	u64 ctx_fb_bytes;
	bool gr;
	u32 engine_type;
	u32 pool_chunks;
	u32 pool_blocks;
	struct nvsim_vaspace *vas;
	bool runlist_assigned;
	bool all_runlisted;
	bool legacy;
	unsigned int unbound;
};

/**
 * struct nvsim_channel - a GPFIFO channel's resource (VOLTA..HOPPER_CHANNEL_GPFIFO_A)
 * @res: the shared resource
 * @tsg: its channel group (a reference on @tsg->res is held)
 * @gpu: its GPU
 * @id_ref: holders of its channel id and instance block (@pooled): the channel until its last
 *	handle goes, and each UVM retention of it (nvsim_uvm_channel.c); the struct goes with the
 *	last, under nvsim_rm_lock
 * @handle: its handle in the allocating client
 * @ring: backing of the memory holding its GPFIFO ring (a reference)
 * @ring_off: byte offset of the ring in @ring
 * @entries: ring size in entries, a power of two
 * @userd: backing of its USERD memory (a reference)
 * @userd_off: byte offset of USERD in @userd
 * @token: its work-submit token, unique per GPU
 * @pooled: its instance block is in a chunk of @tsg's channel pool (nvsim_fifo.c)
 * @vas: the VA space it is in (a reference; NULL: its device's default; nvsim_vaspace.c)
 * @bound: UVM bound its context buffers (a registration; RM's bIsContextBound, never cleared).
 *	Under nvsim_rm_lock
 * @runlist_set: on its group's runlist (RM's kchannelIsRunlistSet(), with @tsg's
 *	@all_runlisted; nvsim_engine_object_construct()). Under nvsim_rm_lock
 * @tsg_node: entry in @tsg->channels
 * @gp_get: next entry the engine fetches; written to USERD GPGet as entries complete, or at the
 *	next writeback (userd_writeback_us)
 * @gp_shown: what USERD GPGet says: @gp_get, or past it by the entries the host has fetched
 *	(gp_get_ahead); never moves back
 * @wb_pending: @gp_get moved since USERD GPGet was last written (userd_writeback_us)
 * @gp_put: the GP_PUT the engine knows (read from USERD on a doorbell, or polled)
 * @enabled: enabled by GPFIFO_SCHEDULE (channel GPFIFO_SCHEDULE(0) clears it, (1) and the TSG's
 *	GPFIFO_SCHEDULE(1) set it)
 * @fifo_disabled: disabled by FIFO_DISABLE_CHANNELS, until it enables the channel again: a
 *	GPFIFO_SCHEDULE(1) of its TSG does not (measured on an H200, GSP 580.159.04)
 * @errored: RC'd by a bad entry; stops for good
 * @in_entry: the entry at @gp_get has started and has @remaining_ns left
 * @remaining_ns: GPU time left of the current KERNEL entry
 * @executed_ns: GPU time the current KERNEL entry has executed (preemption granularity)
 * @notify: the current entry raises a non-stall notification on completion
 * @busy_ns: GPU time its kernels executed
 * @kernels: KERNEL entries completed
 * @errors: bad entries seen
 *
 * The fields from @tsg_node on are protected by the engine lock; the others are set at
 * construction and constant.
 */
struct nvsim_channel {
	struct nvsim_res res;
	struct nvsim_tsg *tsg;
	struct nvsim_gpu *gpu;
	struct kref id_ref;
	u32 handle;
	struct nvsim_backing *ring;
	u64 ring_off;
	u32 entries;
	struct nvsim_backing *userd;
	u64 userd_off;
	u32 token;
	bool pooled;
	struct nvsim_vaspace *vas;
	bool bound;
	bool runlist_set;

	struct list_head tsg_node;
	u32 gp_get;
	u32 gp_shown;
	u32 gp_put;
	bool wb_pending;
	bool enabled;
	bool fifo_disabled;
	bool errored;
	bool in_entry;
	u64 remaining_ns;
	u64 executed_ns;
	bool notify;
	u64 busy_ns;
	u64 kernels;
	u64 errors;
};

extern struct mutex nvsim_rm_lock;
/* client handle -> struct nvsim_client, under nvsim_rm_lock */
extern struct xarray nvsim_clients;
#define nvsim_for_each_client(index, client) xa_for_each(&nvsim_clients, index, client)
extern struct nvsim_gpu nvsim_gpus[NVSIM_MAX_GPUS];
extern unsigned int nvsim_num_gpus;
struct nvsim_gpu *nvsim_gpu_by_id(u32 gpu_id);
/* the numa_node module parameter (nvsim_main.c) */
extern int nvsim_numa_node;
extern const char *nvsim_gpu_name;
extern struct nvrm_abi nvsim_abi;
extern const struct file_operations nvsim_fops;
/* nvsim_uvm.c: /dev/nvidia-uvm */
extern const struct file_operations nvsim_uvm_fops;

/* nvsim_escape.c: the ioctl entry point */
long nvsim_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int nvsim_register_fd(struct file *file, void *params, u32 size);

/* nvsim_attach.c: ATTACH_GPUS_TO_FD and the GPU references it takes (see there) */
int nvidia_dev_get(u32 gpu_id, void *sp, bool reset_aware);
void nvidia_dev_put(u32 gpu_id, void *sp, bool reset_aware);
int nvsim_attach_gpus(struct file *file, const void *params, u32 size);
void nvsim_attach_release(struct nvsim_file *nf);
int nvsim_attach_proc_init(struct nvsim_gpu *gpu);
int nvsim_dmamap_proc_init(struct nvsim_gpu *gpu);
int nvsim_map_memory_dma(struct file *file, void *params, u32 size);
int nvsim_unmap_memory_dma(struct file *file, void *params, u32 size);
void nvsim_dmamap_object_freed(struct nvsim_object *obj);

/* nvsim_rmioctl.c: the RM's escapes, under the real driver's name (see there) */
int rm_ioctl(void *sp, void *nv, struct file *nvfp, u32 cmd, void *data, u32 size);

/* nvsim_rm.c: RM clients, objects and controls */
u32 nvsim_rm_alloc_call(const struct nvsim_caller *caller, struct nvrm_alloc *a);
u32 nvsim_rm_free_call(const struct nvsim_caller *caller, u32 hclient, u32 hobject);
u32 nvsim_rm_control_call(const struct nvsim_caller *caller, const struct nvrm_control *c);
int nvsim_rm_alloc(struct file *file, void *params, u32 size);
int nvsim_rm_free(struct file *file, void *params, u32 size);
int nvsim_rm_control(struct file *file, void *params, u32 size);
void nvsim_rm_release_owner(const void *owner);
void nvsim_rm_exit(void);
void nvsim_res_init(struct nvsim_res *res, void (*release)(struct nvsim_res *res));
void nvsim_res_put(struct nvsim_res *res);
u32 nvsim_client_get(const struct nvsim_caller *caller, u32 hclient, struct nvsim_client **out);
struct nvsim_client *nvsim_client_lookup(u32 hclient);
struct nvsim_object *nvsim_object_lookup(struct nvsim_client *client, u32 handle);
bool nvsim_is_channel_class(u32 hclass);
bool nvsim_is_memory_class(u32 hclass);
u32 os_memcpy_from_user(void *to, const void *from, u32 n);
int nvsim_copy_in(const struct nvsim_caller *caller, void *dst, u64 ptr, size_t n);
int nvsim_copy_out(const struct nvsim_caller *caller, u64 ptr, const void *src, size_t n);
void *nvsim_dup_in(const struct nvsim_caller *caller, u64 ptr, size_t n);
u32 nvsim_check_parent(u32 hclass, const struct nvsim_object *parent);
u32 nvsim_object_new(struct nvsim_client *client, struct nvsim_object *parent, u32 hclass,
		     u32 *handle, struct nvsim_object **out);
u32 nvsim_object_link(struct nvsim_object *obj);
u32 nvsim_rm_alloc_locked(const struct nvsim_caller *caller, struct nvrm_alloc *a, void *ap,
			  u32 ap_size);
u32 nvsim_rm_free_locked(const struct nvsim_caller *caller, u32 hclient, u32 hobject);
struct nvsim_caller nvsim_user_caller(struct file *file);
void nvsim_fb_info_kb(const struct nvsim_gpu *gpu, u32 index, u32 *data);

/* nvsim_dup.c: RM_DUP_OBJECT */
bool nvsim_class_can_copy(u32 hclass);
u32 nvsim_object_new_ref(struct nvsim_client *client, struct nvsim_object *parent, u32 hclass,
			 struct nvsim_res *res, u32 *handle);
u32 nvsim_rm_dup_call(const struct nvsim_caller *caller, struct nvrm_nvos55 *p);
int nvsim_rm_dup(struct file *file, void *params, u32 size);
int nvsim_rm_share(struct file *file, void *params, u32 size);

/* nvsim_registry.c: RM_ACCESS_REGISTRY (see there) */
int nvsim_rm_access_registry(struct file *file, void *params, u32 size);
void nvsim_registry_exit(void);

/* nvsim_vidheap.c: RM_VID_HEAP_CONTROL and RM_ALLOC_MEMORY */
u32 nvsim_vidheap_call(const struct nvsim_caller *caller, struct nvrm_nvos32 *p);
int nvsim_rm_vid_heap_control(struct file *file, void *params, u32 size);
int nvsim_rm_alloc_memory(struct file *file, void *params, u32 size);

/* nvsim_export.c: NV0000 OS_UNIX export and import of objects through a nvidiactl fd */
extern const struct nvsim_control nvsim_export_controls[];
extern const unsigned int nvsim_export_num_controls;
void nvsim_export_file_release(struct nvsim_file *nf);

/* nvsim_dmabuf.c: EXPORT_TO_DMABUF_FD */
int nvsim_export_dmabuf(struct file *file, void *params, u32 size);
bool nvsim_dmabuf_capable(void);

/* nvsim_gpuinfo.c: GPU_GET_INFO_V2, GPU_GET_CACHED_INFO and MC_GET_ARCH_INFO */
extern const struct nvsim_control nvsim_gpuinfo_controls[];
extern const unsigned int nvsim_gpuinfo_num_controls;
bool nvsim_ctxbuf_pools_on(void);
bool nvsim_channel_engine_refused(u32 channel_engine, u32 group_engine);
bool nvsim_group_engine_refused(u32 group_engine);

/* nvsim_falcon.c: the falcon engines and GET_CONSTRUCTED_FALCON_INFO */
extern const struct nvsim_control nvsim_falcon_controls[];
extern const unsigned int nvsim_falcon_num_controls;
u64 nvsim_falcon_group_bytes(u32 engine_type);

/* nvsim_pids.c: per-process usage controls */
extern const struct nvsim_control nvsim_pids_controls[];
extern const unsigned int nvsim_pids_num_controls;
void nvsim_mem_client_gone(struct nvsim_client *client);

/* nvsim_event.c: OS events, event objects and poll() */
extern spinlock_t nvsim_event_lock;
int nvsim_alloc_os_event(struct file *file, void *params, u32 size);
int nvsim_free_os_event(struct file *file, void *params, u32 size);
int nvsim_get_event_data(struct file *file, void *params, u32 size);
u32 nvsim_event_construct(const struct nvsim_caller *caller, struct nvsim_object *obj, void *ap);
void nvsim_event_client_gone(u32 hclient);
int nvsim_event_proc_init(struct proc_dir_entry *root);
void nvsim_event_file_init(struct nvsim_file *nf);
void nvsim_event_file_release(struct file *file);
__poll_t nvsim_poll(struct file *file, struct poll_table_struct *wait);
void nvsim_event_notify(struct nvsim_gpu *gpu, u32 notify_index);

/* nvsim_kapi.c: the kernel-client interface */
void nvsim_kapi_exit(void);

/* Tables of controls other files implement (nvsim_rm.c looks them all up). */
extern const struct nvsim_control nvsim_memctrl_controls[];
extern const unsigned int nvsim_memctrl_num_controls;

/* nvsim_mem.c: memory objects and their backing pages */
u32 nvsim_mem_construct(struct nvsim_object *obj, void *ap, u32 ap_size, bool kernel);
bool nvsim_fb_take(struct nvsim_gpu *gpu, u64 bytes);
void nvsim_fb_give(struct nvsim_gpu *gpu, u64 bytes);
struct nvsim_mem *nvsim_obj_mem(const struct nvsim_object *obj);
struct nvsim_object *nvsim_mem_find_by_addr(struct nvsim_client *client, u64 addr, u64 len);
struct nvsim_backing *nvsim_backing_create(u64 size);
struct nvsim_backing *nvsim_backing_get(struct nvsim_backing *b);
void nvsim_backing_put(struct nvsim_backing *b);
struct page *nvsim_backing_page(struct nvsim_backing *b, pgoff_t index, bool alloc);
u32 nvsim_backing_read32(struct nvsim_backing *b, u64 offset);
u64 nvsim_backing_read64(struct nvsim_backing *b, u64 offset);
void nvsim_backing_write32(struct nvsim_backing *b, u64 offset, u32 val);

/* nvsim_mmap.c: RM_MAP_MEMORY / RM_UNMAP_MEMORY and mmap of the mapping contexts they create */
int nvsim_map_memory(struct file *file, void *params, u32 size);
u32 nvsim_map_memory_locked(struct file *ctl, struct nvrm_nvos33 *p, int fd);
int nvsim_unmap_memory(struct file *file, void *params, u32 size);
int nvsim_update_device_mapping_info(struct file *file, void *params, u32 size);
u32 nvsim_map_memory_kernel(const struct nvsim_caller *caller, struct nvrm_nvos33 *p);
u32 nvsim_unmap_memory_kernel(const struct nvsim_caller *caller, struct nvrm_nvos34 *p);
int nvsim_mmap(struct file *file, struct vm_area_struct *vma);
void nvsim_mmap_release_file(struct nvsim_file *nf);
void nvsim_mmap_object_freed(struct nvsim_object *obj);
void nvsim_mmap_client_freed(struct nvsim_client *client);

/* nvsim_fdpriv.c, nvsim_gpuaccess.c: the caller's fd table, as nv.c looks at it for RM */
void *nv_get_file_private(int fd, bool ctl, void **os_private);
struct file *nvsim_get_nvidia_file(int fd, bool ctl);
bool nv_is_gpu_accessible(struct nvsim_gpu *nv);

/* nvsim_doorbell.c: the usermode object and its doorbell page */
struct nvsim_doorbell;
u32 nvsim_usermode_construct(struct nvsim_object *obj);
u32 nvsim_fabric_construct(struct nvsim_object *obj, void *ap, u32 ap_size);
struct nvsim_doorbell *nvsim_obj_doorbell(const struct nvsim_object *obj);
struct nvsim_doorbell *nvsim_doorbell_get(struct nvsim_doorbell *db);
void nvsim_doorbell_put(struct nvsim_doorbell *db);
struct nvsim_gpu *nvsim_doorbell_gpu(const struct nvsim_doorbell *db);
int nvsim_doorbell_mmap(struct nvsim_doorbell *db, struct vm_area_struct *vma);
void nvsim_doorbell_exit(void);

/**
 * struct nvsim_vaspace - a GPU VA space's resource (FERMI_VASPACE_A; nvsim_vaspace.c)
 * @res: the shared resource (its duplicates, and the groups, subcontexts and channels in it,
 *	hold references)
 * @flags: NV_VASPACE_ALLOCATION_FLAGS_* it was made with
 * @uvm_users: UVM GPU VA spaces that registered it (UVM has set its page directory while any
 *	does)
 *
 * Under nvsim_rm_lock.
 */
struct nvsim_vaspace {
	struct nvsim_res res;
	u32 flags;
	unsigned int uvm_users;
};

/* Is @vas (NULL: a device's default) one whose page tables UVM manages? */
static inline bool nvsim_vaspace_external(const struct nvsim_vaspace *vas)
{
	return vas && (vas->flags & NVRM_VASPACE_FLAGS_IS_EXTERNALLY_OWNED);
}

/* nvsim_vaspace.c: VA spaces and subcontexts, and which one a group or channel is in */
struct nvsim_vaspace *nvsim_vaspace_get(struct nvsim_vaspace *vas);
void nvsim_vaspace_put(struct nvsim_vaspace *vas);
struct nvsim_vaspace *nvsim_vaspace_of(const struct nvsim_object *obj);
u32 nvsim_vaspace_lookup(struct nvsim_client *client, u32 handle, struct nvsim_vaspace **out);
u32 nvsim_vaspace_construct(struct nvsim_object *obj, const void *ap);
u32 nvsim_ctxshare_construct(struct nvsim_object *obj, const void *ap);
struct nvsim_vaspace *nvsim_ctxshare_vaspace(const struct nvsim_object *obj);

/* nvsim_fifo.c: channel groups, channels and their controls */
extern const struct nvsim_control nvsim_fifo_controls[];
extern const unsigned int nvsim_fifo_num_controls;
u32 nvsim_tsg_construct(struct nvsim_object *obj, void *ap);
u32 nvsim_channel_construct(struct nvsim_object *obj, struct nvsim_object *parent, void *ap);
void nvsim_engine_object_construct(const struct nvsim_object *parent);
bool nvsim_channel_runlist_set(const struct nvsim_channel *chan);
void nvsim_channel_bound(struct nvsim_channel *chan);
struct nvsim_channel *nvsim_channel_of(const struct nvsim_object *obj);
void nvsim_channel_retain(struct nvsim_channel *chan);
void nvsim_channel_let_go(struct nvsim_channel *chan);

/* nvsim_engine.c: the simulated engine (its own lock; see struct nvsim_engine) */
int nvsim_engine_init(struct nvsim_gpu *gpu);
void nvsim_engine_exit(struct nvsim_gpu *gpu);
void nvsim_engine_doorbell(struct nvsim_gpu *gpu, u32 token, pid_t tgid, s64 at);
int nvsim_engine_add_tsg(struct nvsim_tsg *tsg, pid_t tgid);
void nvsim_engine_remove_tsg(struct nvsim_tsg *tsg);
int nvsim_engine_add_channel(struct nvsim_channel *chan);
void nvsim_engine_remove_channel(struct nvsim_channel *chan);
void nvsim_engine_put_channel_id(struct nvsim_engine *e);
void nvsim_engine_schedule(struct nvsim_tsg *tsg, bool enable);
void nvsim_engine_channel_enable(struct nvsim_channel *chan, bool enable, bool preempt);
u64 nvsim_engine_channel_fifo_disable(struct nvsim_channel *chan, bool disable, bool preempt);
void nvsim_engine_wait_off(struct nvsim_tsg *tsg, u64 seq);
void nvsim_engine_set_compute_preemption(struct nvsim_tsg *tsg, u32 mode);
void nvsim_engine_fifo_call(struct nvsim_engine *e, bool disable, u32 channels);
u32 nvsim_engine_preempt(struct nvsim_tsg *tsg, bool wait, u32 timeout_us);
void nvsim_engine_set_timeslice(struct nvsim_tsg *tsg, u64 us);
bool nvsim_engine_controls_effective(void);
bool nvsim_engine_schedule_off_effective(void);

#endif /* NVSIM_INTERNAL_H */
