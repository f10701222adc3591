package dev.idempotency.codec;

import java.util.function.Function;

/**
 * Checks the elements of a container: a collection or {@code Iterable}, an array of
 * objects, or the values of a map.
 */
final class ElementsCheck extends SubclassCheck {

	private final SubclassCheck element;

	private final Function<Object, Iterable<?>> elements;

	/**
	 * Create the check of a container's elements.
	 * @param element the check of each element that is not {@code null}
	 * @param elements the elements of a container
	 */
	ElementsCheck(SubclassCheck element, Function<Object, Iterable<?>> elements) {
		this.element = element;
		this.elements = elements;
	}

	@Override
	void check(Object value) {
		for (Object element : this.elements.apply(value)) {
			if (element != null) {
				this.element.check(element);
			}
		}
	}

}
