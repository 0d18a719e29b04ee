import amqp from 'amqplib';
import { topology } from '../bus/transports/amqp-transport';
import type { Kernel } from '../kernel/kernel';

/**
 * Deletes a kernel's exchange and its consumers' queues from the broker, so test and
 * bench runs (each in a bus namespace of its own) leave the broker as they found it.
 */
export async function removeBrokerTopology(kernel: Kernel): Promise<void> {
  const url = kernel.config.core.amqpUrl;
  if (!url) return;
  const names = topology(kernel.config.core.busNamespace);
  const connection = await connectPatiently(url);
  try {
    const channel = await connection.createChannel();
    for (const consumer of kernel.bus.consumers) await channel.deleteQueue(names.queue(consumer.name));
    await channel.deleteExchange(names.exchange);
  } finally {
    await connection.close();
  }
}

/**
 * The broker is shared by test files running in parallel, and the bus's broker-restart
 * tests stop it for a few seconds: cleanup waits for it (up to 60 s) instead of failing
 * the file that happened to finish meanwhile.
 */
async function connectPatiently(url: string): Promise<amqp.ChannelModel> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await amqp.connect(url);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

