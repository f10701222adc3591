package com.example.payments;

public record Receipt(String orderId, long amountCents, long fence) {

}
