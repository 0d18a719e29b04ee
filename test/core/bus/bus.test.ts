import { batchDeliveryCases, batchTransportCases, malformedMessageCases, prefetchCases } from './batch-cases';
import { deliveryCases } from './delivery-cases';
import { wakeCases } from './wake-cases';
import { workerCases } from './worker-cases';

// Every bus test runs in this one file, so they run one after another. The broker
// restart cases are in broker-restart.serial-test.ts: `npm test` runs them alone, last.

describe('batched delivery (one inbox transaction, a savepoint per handler)', batchDeliveryCases);

describe('bus over in-process delivery', () => {
  deliveryCases({});
  batchTransportCases({});
  workerCases({});
  wakeCases({});
});

// RabbitMQ when AMQP_URL points at a broker (CI sets it).
(process.env.AMQP_URL ? describe : describe.skip)('bus over RabbitMQ', () => {
  const amqp = { amqpUrl: process.env.AMQP_URL };
  deliveryCases(amqp);
  batchTransportCases(amqp);
  malformedMessageCases(amqp);
  prefetchCases(amqp);
  workerCases(amqp);
  wakeCases(amqp);
});
