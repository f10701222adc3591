package com.example.payments;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An application of a user of the starter, as its tests see it: it knows nothing of the
 * test kit.
 */
@SpringBootApplication
public class PaymentsApplication {

}
