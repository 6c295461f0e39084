// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: events over generic netlink.
 *
 * One family, "qgpu", with one multicast group, "events". Events go to listeners in the initial
 * network namespace only, and where the kernel supports it joining the group needs
 * CAP_SYS_ADMIN: they name instances and processes of every tenant, so a container must not
 * see them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <net/genetlink.h>

#include "qgpu_netlink.h"

/* Joining the group needs CAP_SYS_ADMIN where the kernel can require it (probed in Kbuild). */
#ifdef QGPU_HAVE_GENL_MCAST_CAP
#define QGPU_GENL_MCAST_FLAGS	GENL_MCAST_CAP_SYS_ADMIN
#else
#define QGPU_GENL_MCAST_FLAGS	0
#endif

static const struct genl_multicast_group qgpu_mcgrps[] = {
	{ .name = QGPU_GENL_MCGRP_EVENTS, .flags = QGPU_GENL_MCAST_FLAGS },
};

static struct genl_family qgpu_genl_family __ro_after_init = {
	.name		= QGPU_GENL_NAME,
	.version	= QGPU_GENL_VERSION,
	.maxattr	= QGPU_ATTR_MAX,
	.module		= THIS_MODULE,
	.mcgrps		= qgpu_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(qgpu_mcgrps),
};

/**
 * qgpu_event_emit() - send an event to the listeners of the "events" group
 * @ev: the event
 *
 * Events are best effort, as netlink multicast is: with no listener, or a listener whose socket
 * buffer is full, the event is dropped; nothing in qgpu waits for it.
 *
 * Context: process context (allocates with GFP_KERNEL).
 */
void qgpu_event_emit(const struct qgpu_event *ev)
{
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&qgpu_genl_family, &init_net, 0))
		return;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &qgpu_genl_family, 0, QGPU_CMD_EVENT);
	if (!hdr)
		goto err_free;
	if (nla_put_string(skb, QGPU_ATTR_EVENT, ev->event) ||
	    nla_put_u64_64bit(skb, QGPU_ATTR_TIMESTAMP_NS, ktime_get_ns(), QGPU_ATTR_UNSPEC))
		goto err_free;
	if (ev->gpu >= 0 && nla_put_u32(skb, QGPU_ATTR_GPU, ev->gpu))
		goto err_free;
	if (ev->instance && nla_put_string(skb, QGPU_ATTR_INSTANCE, ev->instance))
		goto err_free;
	if (ev->pid && nla_put_u32(skb, QGPU_ATTR_PID, ev->pid))
		goto err_free;
	if (ev->size && nla_put_u64_64bit(skb, QGPU_ATTR_SIZE, ev->size, QGPU_ATTR_UNSPEC))
		goto err_free;
	if (ev->detail && nla_put_string(skb, QGPU_ATTR_DETAIL, ev->detail))
		goto err_free;
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&qgpu_genl_family, skb, 0, 0, GFP_KERNEL);
	return;
err_free:
	nlmsg_free(skb);
}

int qgpu_netlink_init(void)
{
	return genl_register_family(&qgpu_genl_family);
}

void qgpu_netlink_exit(void)
{
	genl_unregister_family(&qgpu_genl_family);
}
