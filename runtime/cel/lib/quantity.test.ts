import { describe, expect, it } from 'vitest';
import { evaluate } from '../evaluate.testing.js';
import { Quantity } from './quantity-value.js';

describe('quantity grammar', () => {
  it('parses binary and decimal suffixes and exponents exactly', () => {
    expect(Quantity.parse('1Gi')?.toString()).toBe('1073741824');
    expect(Quantity.parse('500m')?.toString()).toBe('0.5');
    expect(Quantity.parse('1e3')?.toString()).toBe('1000');
    expect(Quantity.parse('1.5')?.toString()).toBe('1.5');
    expect(Quantity.parse('1.5Ki')?.toString()).toBe('1536');
    expect(Quantity.parse('+.5k')?.toString()).toBe('500');
    expect(Quantity.parse('-2n')?.toString()).toBe('-0.000000002');
    expect(Quantity.parse('1E')?.toString()).toBe('1000000000000000000');
    expect(
      Quantity.parse('0.1')
        ?.add(Quantity.parse('0.2') as Quantity)
        .toString(),
    ).toBe('0.3');
  });

  it('rounds finer than nano up and caps at 2^63-1', () => {
    expect(Quantity.parse('1e-10')?.toString()).toBe('0.000000001');
    expect(Quantity.parse('1e30')?.toString()).toBe('9223372036854775807');
  });

  it('rejects what is not a quantity', () => {
    for (const bad of ['', '1 Gi', '1gi', 'Gi', '1e', '1.2.3', 'abc', '1Gb', '.']) expect(Quantity.parse(bad), bad).toBeUndefined();
  });
});

describe('quantity library', () => {
  it('isQuantity and quantity', () => {
    expect(evaluate("isQuantity('1Gi')")).toBe(true);
    expect(evaluate("isQuantity('1 Gi')")).toBe(false);
    expect(() => evaluate("quantity('x')")).toThrow(/invalid quantity/);
    expect(evaluate("quantity('1') == quantity('1000m')")).toBe(true);
  });

  it('isInteger and asInteger', () => {
    expect(evaluate("quantity('1k').isInteger()")).toBe(true);
    expect(evaluate("quantity('500m').isInteger()")).toBe(false);
    expect(evaluate("quantity('1k').asInteger()")).toBe(1000n);
    expect(() => evaluate("quantity('500m').asInteger()")).toThrow(/cannot convert/);
  });

  it('asApproximateFloat and sign', () => {
    expect(evaluate("quantity('1.5Gi').asApproximateFloat()")).toBe(1610612736);
    expect(evaluate("quantity('-1').sign()")).toBe(-1n);
    expect(evaluate("quantity('0').sign()")).toBe(0n);
    expect(evaluate("quantity('1m').sign()")).toBe(1n);
  });

  it('add and sub, with a quantity or an int', () => {
    expect(evaluate("quantity('1Gi').add(quantity('512Mi')) == quantity('1.5Gi')")).toBe(true);
    expect(evaluate("quantity('1').add(2) == quantity('3')")).toBe(true);
    expect(evaluate("quantity('1').sub(quantity('500m')) == quantity('0.5')")).toBe(true);
    expect(evaluate("quantity('1').sub(2).sign()")).toBe(-1n);
    expect(evaluate("quantity('1').add(1) == quantity('3')")).toBe(false);
  });

  it('isLessThan, isGreaterThan and compareTo', () => {
    expect(evaluate("quantity('500m').isLessThan(quantity('1'))")).toBe(true);
    expect(evaluate("quantity('1Gi').isLessThan(quantity('1G'))")).toBe(false);
    expect(evaluate("quantity('1Gi').isGreaterThan(quantity('1G'))")).toBe(true);
    expect(evaluate("quantity('1').isGreaterThan(quantity('2'))")).toBe(false);
    expect(evaluate("quantity('1k').compareTo(quantity('1000'))")).toBe(0n);
    expect(evaluate("quantity('1').compareTo(quantity('2'))")).toBe(-1n);
  });
});
