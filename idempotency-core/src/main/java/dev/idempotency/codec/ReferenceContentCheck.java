package dev.idempotency.codec;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Checks the content of an {@code Optional} or {@code AtomicReference}.
 */
final class ReferenceContentCheck extends SubclassCheck {

	private final SubclassCheck content;

	/**
	 * Create the check of a reference's content.
	 * @param content the check of the content, when there is one
	 */
	ReferenceContentCheck(SubclassCheck content) {
		this.content = content;
	}

	@Override
	void check(Object value) {
		Object content = (value instanceof Optional<?> optional) ? optional.orElse(null)
				: ((AtomicReference<?>) value).get();
		if (content != null) {
			this.content.check(content);
		}
	}

}
