package dev.idempotency.autoconfigure.kafka;

record PaymentEvent(String id, long amount) {

}
